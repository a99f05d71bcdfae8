/** Driving the Node-RED editor the way a person does: drag from the palette, draw wires, click Deploy. */
import type { Page } from 'playwright-core';

const NODE = '#red-ui-workspace-chart g.red-ui-flow-node-group';

async function nodeIds(page: Page): Promise<string[]> {
  return page.locator(NODE).evaluateAll((els) => els.map((e) => e.id));
}

async function centre(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not visible`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Drags a palette entry onto the workspace at (x, y) relative to the chart; returns the new node's id. */
export async function addNode(page: Page, type: string, x: number, y: number): Promise<string> {
  // The flows may still be drawing right after the page loads (a busy machine): wait (bounded) until the
  // workspace shows every node of its tab, so none of them is taken for the new one.
  await page
    .waitForFunction(
      (sel) => {
        const RED = (
          window as unknown as {
            RED?: { workspaces: { active(): string }; nodes: { filterNodes(f: object): unknown[] } };
          }
        ).RED;
        if (!RED?.workspaces || !RED.nodes?.filterNodes) return false;
        return (
          document.querySelectorAll(sel).length >=
          RED.nodes.filterNodes({ z: RED.workspaces.active() }).length
        );
      },
      NODE,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  const before = new Set(await nodeIds(page));
  const entry = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
  await entry.scrollIntoViewIfNeeded();
  const from = await centre(page, `.red-ui-palette-node[data-palette-type="${type}"]`);
  const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
  if (!chart) throw new Error('no workspace');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 20, from.y, { steps: 5 });
  await page.mouse.move(chart.x + x, chart.y + y, { steps: 15 });
  await page.mouse.up();
  // the editor draws the new node on its next redraw, later still on a busy machine
  let added: string[] = [];
  for (let waited = 0; waited < 10000; waited += 100) {
    added = (await nodeIds(page)).filter((id) => !before.has(id));
    if (added.length > 0) break;
    await page.waitForTimeout(100);
  }
  if (added.length !== 1) throw new Error(`dragging ${type} added ${added.length} nodes`);
  return added[0]!;
}

/** Draws a wire from the first output of one node to the input of another. */
export async function wire(page: Page, fromId: string, toId: string): Promise<void> {
  const from = await centre(page, `[id="${fromId}"] .red-ui-flow-port-output .red-ui-flow-port`);
  const to = await centre(page, `[id="${toId}"] .red-ui-flow-port-input .red-ui-flow-port`);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 15 });
  await page.mouse.up();
}

export async function openEditDialog(page: Page, id: string): Promise<void> {
  await page.dblclick(`[id="${id}"] .red-ui-flow-node`);
  await page.waitForSelector('#node-dialog-ok', { state: 'visible' });
}

/** Sets a TypedInput field to a literal string: switches it to "string", then types into the visible box. */
export async function setTypedString(page: Page, inputId: string, value: string): Promise<void> {
  await page.evaluate((id) => {
    const $ = (window as unknown as { $: (s: string) => { typedInput(...a: string[]): unknown } }).$;
    if ($(`#${id}`).typedInput('type') !== 'str') $(`#${id}`).typedInput('type', 'str');
  }, inputId);
  // the widget hides the original input and shows its own box right after it
  const visible = page.locator(`#${inputId} + div input.red-ui-typedInput-input`);
  if ((await visible.count()) === 1) await visible.fill(value);
  else
    await page.evaluate(
      ([id, v]) => {
        const $ = (window as unknown as { $: (s: string) => { typedInput(...a: string[]): unknown } }).$;
        $(`#${id}`).typedInput('value', v!);
      },
      [inputId, value],
    );
  const stored = await page.evaluate((id) => {
    const $ = (window as unknown as { $: (s: string) => { typedInput(...a: string[]): unknown } }).$;
    return $(`#${id}`).typedInput('value');
  }, inputId);
  if (stored !== value)
    throw new Error(`typed "${value}" into ${inputId} but the field holds "${String(stored)}"`);
}

export async function deploy(page: Page): Promise<void> {
  // The button is enabled a moment after a dialog closes with a change: a click before that does nothing.
  await page.waitForSelector('#red-ui-header-button-deploy:not(.disabled)', { timeout: 20000 });
  await page.click('#red-ui-header-button-deploy');
  await page.waitForSelector('#red-ui-header-button-deploy.disabled', { timeout: 20000 });
}

export async function showSidebarTab(page: Page, tab: 'debug' | 'info' | 'config'): Promise<void> {
  const button = page.locator(`#red-ui-tab-${tab}-link-button`);
  if (await button.isVisible()) await button.click();
  else {
    // Node-RED 5 redesigned the sidebars; its public sidebar API is the same in 4 and 5
    await page.evaluate((t) => {
      (window as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show(t);
    }, tab);
  }
}

/** Clicks a tab of the gateway configuration dialog. */
export async function configTab(
  page: Page,
  tab: 'connection' | 'security' | 'delivery' | 'messages' | 'budget' | 'optout',
): Promise<void> {
  // RED.tabs takes two clicks within 400 ms (on any of its tabs) as a double click
  await page.waitForTimeout(450);
  await page.click(`#smsgw-config-tabs a[href="#smsgw-config-tab-${tab}"]`);
  await page.waitForSelector(`#smsgw-config-tab-${tab}`, { state: 'visible' });
}

/** Opens the gateway configuration selected in the open node dialog (the pencil beside it). */
export async function editGatewayConfig(page: Page): Promise<void> {
  const edit = page.locator('#node-input-btn-gateway-edit');
  if ((await edit.count()) > 0) await edit.click();
  else await page.click('#node-input-lookup-gateway');
  await page.waitForSelector('#node-config-input-baseUrl', { state: 'visible' });
}

/**
 * Clears the palette's search through its search box, so the palette keeps no filter (the editor saves it for the
 * next page load), and waits until the package's nodes show again.
 */
export async function clearPaletteSearch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const $ = (window as unknown as { $: (s: string) => { searchBox(m: string, v: string): void } }).$;
    $('#red-ui-palette-search input').searchBox('value', '');
  });
  await page.waitForFunction(
    () => !/"filter":"[^"]/.test(window.localStorage.getItem('palette-state') ?? ''),
    undefined,
    { timeout: 10_000 },
  );
  await page.locator('.red-ui-palette-node[data-palette-type="smsgw-dlr"]').waitFor({ state: 'visible' });
}

/** The gateway configuration a node of the open flow is saved with, as the editor holds it. */
export function gatewayOf(page: Page, nodeId: string): Promise<string> {
  return page.evaluate(
    (id) =>
      (window as unknown as { RED: { nodes: { node(id: string): { gateway: string } } } }).RED.nodes.node(id)
        .gateway,
    nodeId,
  );
}

/** Lists the example flows Node-RED serves for a module (GET /library/examples/flows/<module>[/<dir>]). */
export async function listServedExamples(baseUrl: string, moduleName: string, dir = ''): Promise<string[]> {
  const path = `${baseUrl}/library/examples/flows/${moduleName}${dir ? `/${dir}` : ''}`;
  const res = await fetch(path, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`);
  const entries = (await res.json()) as (string | { fn: string })[];
  const names: string[] = [];
  for (const e of entries) {
    if (typeof e === 'string')
      names.push(...(await listServedExamples(baseUrl, moduleName, dir ? `${dir}/${e}` : e)));
    else names.push(dir ? `${dir}/${e.fn}` : e.fn);
  }
  return names.sort();
}

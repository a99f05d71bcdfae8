/**
 * The panel's sections on the runtime side. A section is a data function behind one admin route
 * (GET smsgw/panel/<config>/<section>, the right to read the configuration) and, optionally, actions
 * (POST smsgw/panel/<config>/<section>/<action>, the right to change it); the editor plugin has a renderer of the
 * same name. A feature adds its section here with `registerPanelSection` and a renderer: nothing else changes.
 */
import type { NodeAPI } from 'node-red';
import type { SmsgwConfigNode } from '../../config/config-node';
import type { Shown } from './mask';

/** What a section's data function knows of the request. */
export interface PanelContext {
  RED: NodeAPI;
  config: SmsgwConfigNode;
  /** The user holds smsgw-config.write: the section may offer its actions. */
  canWrite: boolean;
  /** How a phone number is shown: masked unless a user who may write asked to reveal them. */
  shown: Shown;
  now: number;
}

/** An action's answer: an HTTP status and a JSON body. */
export interface ActionResult {
  status: number;
  body: Record<string, unknown>;
}

export interface PanelSection {
  /** The route's last part and the renderer's name: lower case letters. */
  name: string;
  data(ctx: PanelContext): Promise<Record<string, unknown>> | Record<string, unknown>;
  actions?: Record<string, (ctx: PanelContext, body: Record<string, unknown>) => Promise<ActionResult>>;
}

const sections = new Map<string, PanelSection>();

export function registerPanelSection(section: PanelSection): void {
  if (!/^[a-z]+$/.test(section.name))
    throw new Error(`panel section name '${section.name}': lower case letters only`);
  sections.set(section.name, section);
}

export const panelSection = (name: string): PanelSection | undefined => sections.get(name);

export const panelSections = (): string[] => [...sections.keys()];

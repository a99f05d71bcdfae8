/**
 * Whether the user of an admin request holds a permission, read as Node-RED reads a user's scope
 * (@node-red/editor-api's permissions): "*" holds all, "read"/"write" (or "*.read"/"*.write") every such right.
 * Node-RED without adminAuth has no user on the request: everyone may do everything there, as in its editor.
 */
import type { Request } from 'express';

function holds(scope: unknown, permission: string): boolean {
  if (Array.isArray(scope)) return scope.some((s) => holds(s, permission));
  if (typeof scope !== 'string') return false;
  if (scope === '*' || scope === permission) return true;
  if (scope === 'read' || scope === '*.read') return /^(.+\.)?read$/.test(permission);
  if (scope === 'write' || scope === '*.write') return /^(.+\.)?write$/.test(permission);
  return false;
}

export function userHolds(req: Request, permission: string): boolean {
  const user = (req as Request & { user?: unknown }).user;
  if (user === undefined || user === null) return true;
  if (typeof user !== 'object') return false;
  return holds((user as { permissions?: unknown }).permissions, permission);
}

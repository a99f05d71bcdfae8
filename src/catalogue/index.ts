import { createCatalogue, type Catalogue } from './catalogue';
import { OPERATIONS } from './operations';
import { COMPLEX_TYPES, ENUMS } from './schema';
import type { OperationDef, ServiceName } from './types';

export * from './types';
export { t } from './refs';
export { COMPLEX_TYPES, ENUMS, ENVELOPES, complexType, enumType } from './schema';
export { OPERATIONS } from './operations';
export { createCatalogue, operationKey, type Catalogue, type CatalogueTables } from './catalogue';
export { methodName } from './names';

/** The package's catalogue: the default of everything that takes one (client, emulator, node menus, generators). */
export const CATALOGUE: Catalogue = createCatalogue({
  operations: OPERATIONS,
  enums: ENUMS,
  complexTypes: COMPLEX_TYPES,
});

/** Default paths of the four services below the base URL (the customer path is a guess: configurable). */
export const DEFAULT_PATHS: Readonly<Record<ServiceName, string>> = {
  information: '/gateway/Information.asmx',
  send: '/gateway/Send.asmx',
  customer: '/gateway/Customer.asmx',
  legacy: '/soap/send.asmx',
};

/** Default namespaces (the spec calls them {gateway_ns} and {legacy_ns} and does not show them). */
export const DEFAULT_NAMESPACES = {
  gateway: 'https://gateway.smsgw.example/',
  legacy: 'https://gateway.smsgw.example/soap/',
} as const;

/** The typed gateway services share {gateway_ns}; the older service has its own. */
export const namespaceKind = (service: ServiceName): 'gateway' | 'legacy' =>
  service === 'legacy' ? 'legacy' : 'gateway';

/** An operation of the package's catalogue (`CATALOGUE.find`). */
/** The names of the operations that reach no handset (`lookup`): for records that carry an operation's name only. */
export const LOOKUP_OPERATIONS: ReadonlySet<string> = new Set(
  OPERATIONS.filter((op) => op.lookup === true).map((op) => op.name),
);

export function findOperation(service: ServiceName, name: string): OperationDef | undefined {
  return CATALOGUE.find(service, name);
}

/** The operations of one service in the package's catalogue (`CATALOGUE.of`). */
export function operationsOf(service: ServiceName): OperationDef[] {
  return [...CATALOGUE.of(service)];
}

/** ASMX's default SOAPAction: namespace + name, with a slash between unless the namespace ends in one. */
export function soapAction(namespace: string, operation: string): string {
  return namespace.endsWith('/') ? namespace + operation : `${namespace}/${operation}`;
}

/** ASMX's namespace of encoded types when only some methods of a class are RPC. */
export function encodedTypesNamespace(namespace: string): string {
  return namespace.endsWith('/') ? `${namespace}encodedTypes` : `${namespace}/encodedTypes`;
}

/** The part of espree (eslint's parser, installed with eslint) the console tests use. */
declare module 'espree' {
  export function parse(code: string, options: { ecmaVersion: number }): unknown;
}

// Just the parts of these untyped dev dependencies the benchmarks use.
declare module 'strong-soap' {
  export const soap: {
    createClient(url: string, options: object, cb: (err: unknown, client: unknown) => void): void;
  };
}
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
  }
  interface Result {
    requests: { total: number; average: number };
    non2xx: number;
    errors: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}

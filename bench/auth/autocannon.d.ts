// autocannon ships no types; this is the part of its programmatic API the benchmark uses.
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    non2xx: number;
    timeouts: number;
  }
  export interface RawResult {
    totalCompletedRequests: number;
    /** Seconds. */
    duration: number;
  }
  interface Autocannon {
    /** In a worker thread the result is raw (autocannon aggregates only on the main thread). */
    (options: Options): Promise<Result | RawResult>;
    aggregateResult(results: (Result | RawResult)[], options: Options): Result;
  }
  const autocannon: Autocannon;
  export default autocannon;
}

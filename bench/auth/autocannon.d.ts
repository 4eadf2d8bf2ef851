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
    /** Seconds. */
    duration: number;
  }
  interface Autocannon {
    (options: Options): Promise<Result>;
  }
  const autocannon: Autocannon;
  export default autocannon;
}

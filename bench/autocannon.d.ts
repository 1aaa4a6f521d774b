// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
    total?: number;
  }
  interface Result {
    title?: string;
    url: string;
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    connections: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    title?: string;
    timeout?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}

import { runSectionChild } from '../child.js';

export interface ScalingRow {
  label: string;
  requests: number;
  requestsMax: number;
  rcu: number;
  wcu: number;
  p50: number;
  p99: number;
  commands?: string;
  error?: string;
  skipped?: string;
}

export interface ScalingResult {
  sizes?: Record<string, number[]>;
  seedSeconds?: Record<string, number>;
  feed?: ScalingRow[];
  commentPages?: ScalingRow[];
  followerOffsets?: ScalingRow[];
  verifyKeys?: ScalingRow[];
}

/**
 * The scaling tables run in a child process on tables of their own (fresh config, no data from the
 * other sections), on a DynamoDB Local of their own (bench/child.ts). The child prints its tables and hands back JSON.
 */
export function scalingSection(options: { quick: boolean; settings: Record<string, string> }): Promise<ScalingResult> {
  return runSectionChild<ScalingResult>('bench/scaling-child.ts', 'scale_', options);
}

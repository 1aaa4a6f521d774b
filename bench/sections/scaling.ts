export interface ScalingRow {
  label: string;
  requests: number;
  requestsMax: number;
  rcu: number;
  wcu: number;
  p50: number;
  p99: number;
  error?: string;
}

export interface ScalingResult {
  feed?: ScalingRow[];
  commentPages?: ScalingRow[];
  followerOffsets?: ScalingRow[];
  verifyKeys?: ScalingRow[];
}

export async function scalingSection(_options: { quick: boolean }): Promise<ScalingResult> {
  return {};
}

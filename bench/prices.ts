/**
 * List prices used for the cost estimates (AWS us-east-1, on-demand, as published since the
 * November 2024 DynamoDB price change). Estimates only: edit here if your region or prices differ.
 */
export const PRICES = {
  /** DynamoDB on-demand, USD per million request units. */
  dynamoReadPerMillionRru: 0.125,
  dynamoWritePerMillionWru: 0.625,
  /** Lambda arm64, USD per GB-second and per million requests. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
};

/** USD per million calls for the DynamoDB capacity one call consumes. */
export function dynamoUsdPerMillionCalls(rcu: number, wcu: number): number {
  return rcu * PRICES.dynamoReadPerMillionRru + wcu * PRICES.dynamoWritePerMillionWru;
}

import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type AttributeType, type TableDefinition } from '../../lib/platform/db/tables.js';
import type { ExistingTable } from '../settings.js';

const ATTRIBUTE_TYPES: Record<AttributeType, dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
};

const PROJECTIONS = {
  ALL: dynamodb.ProjectionType.ALL,
  KEYS_ONLY: dynamodb.ProjectionType.KEYS_ONLY,
  INCLUDE: dynamodb.ProjectionType.INCLUDE,
} as const;

const attribute = (a: { name: string; type: AttributeType }): dynamodb.Attribute => ({ name: a.name, type: ATTRIBUTE_TYPES[a.type] });

export interface DataTablesProps {
  /** Production: retained when the stack is deleted, and protected against deletion. Otherwise destroyed with the stack. */
  production: boolean;
  /** Tables to use instead of creating them (a point-in-time restore: docs/deploy.md, "Backups and restore"). */
  existing?: Partial<Record<TableDefinition['envVar'], ExistingTable>>;
}

/**
 * The DynamoDB tables, built from the same definitions the local runtime uses (lib/platform/db/tables.ts).
 * CloudFormation names them (after the stack, so stages do not collide); functions learn the names
 * through each definition's `envVar`.
 */
export class DataTables extends Construct {
  /** The deployed table of each definition, keyed by the definition's environment variable. */
  readonly byEnvVar = new Map<TableDefinition['envVar'], dynamodb.ITable>();

  constructor(scope: Construct, id: string, props: DataTablesProps) {
    super(scope, id);
    for (const definition of TABLES) {
      const existing = props.existing?.[definition.envVar];
      if (existing) {
        // Not managed by the stack: its stream, TTL, PITR and deletion protection are set by the
        // restore runbook. The indexes are named so that grants can reach them.
        this.byEnvVar.set(
          definition.envVar,
          dynamodb.Table.fromTableAttributes(this, definition.id, {
            tableName: existing.name,
            tableStreamArn: existing.streamArn,
            globalIndexes: definition.globalIndexes.map((i) => i.indexName),
          }),
        );
        continue;
      }
      const table = new dynamodb.Table(this, definition.id, {
        partitionKey: attribute(definition.partitionKey),
        sortKey: attribute(definition.sortKey),
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        timeToLiveAttribute: definition.ttlAttribute,
        stream: definition.stream ? dynamodb.StreamViewType[definition.stream] : undefined,
        deletionProtection: props.production,
        removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
      for (const index of definition.globalIndexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
          projectionType: PROJECTIONS[index.projection],
          nonKeyAttributes: index.nonKeyAttributes,
        });
      }
      this.byEnvVar.set(definition.envVar, table);
    }
  }

  table(envVar: TableDefinition['envVar']): dynamodb.ITable {
    const table = this.byEnvVar.get(envVar);
    if (!table) throw new Error(`No table is defined for ${envVar} in lib/platform/db/tables.ts`);
    return table;
  }
}

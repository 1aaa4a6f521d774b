/** Builds one UpdateExpression from clauses, naming every attribute through placeholders. */
export class UpdateBuilder {
  private readonly set: string[] = [];
  private readonly add: string[] = [];
  private readonly remove: string[] = [];
  private readonly del: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private n = 0;

  private name(attribute: string): string {
    const placeholder = `#a${this.n++}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }
  private value(v: unknown): string {
    const placeholder = `:v${this.n++}`;
    this.values[placeholder] = v;
    return placeholder;
  }
  setValue(attribute: string, v: unknown): this {
    this.set.push(`${this.name(attribute)} = ${this.value(v)}`);
    return this;
  }
  setIfMissing(attribute: string, v: unknown): this {
    const a = this.name(attribute);
    this.set.push(`${a} = if_not_exists(${a}, ${this.value(v)})`);
    return this;
  }
  appendToList(attribute: string, items: unknown[]): this {
    const a = this.name(attribute);
    this.set.push(`${a} = list_append(if_not_exists(${a}, ${this.value([])}), ${this.value(items)})`);
    return this;
  }
  addNumber(attribute: string, v: number): this {
    this.add.push(`${this.name(attribute)} ${this.value(v)}`);
    return this;
  }
  addToSet(attribute: string, members: Iterable<string>): this {
    const set = new Set(members);
    if (set.size > 0) this.add.push(`${this.name(attribute)} ${this.value(set)}`);
    return this;
  }
  deleteFromSet(attribute: string, members: Iterable<string>): this {
    const set = new Set(members);
    if (set.size > 0) this.del.push(`${this.name(attribute)} ${this.value(set)}`);
    return this;
  }
  removeAttribute(path: string, index?: number): this {
    this.remove.push(index === undefined ? this.name(path) : `${this.name(path)}[${index}]`);
    return this;
  }
  get empty(): boolean {
    return this.set.length + this.add.length + this.remove.length + this.del.length === 0;
  }
  expression(): string {
    return [
      this.set.length ? `SET ${this.set.join(', ')}` : '',
      this.add.length ? `ADD ${this.add.join(', ')}` : '',
      this.remove.length ? `REMOVE ${this.remove.join(', ')}` : '',
      this.del.length ? `DELETE ${this.del.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  /** The parameters of an Update (UpdateCommand or a TransactWrite Update). */
  params(): { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      UpdateExpression: this.expression(),
      ExpressionAttributeNames: this.names,
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

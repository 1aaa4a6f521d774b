/** Who a request acts for, as the authorizer (or the hub's in-function check) established it. */
export interface Principal {
  user_id: string;
  auth_type: 'jwt' | 'api_key';
  scopes: string[];
  roles: string[];
  /** An access key's own id (absent for a login token): a key may read its own usage (docs/api-keys.md). */
  key_id?: number;
}

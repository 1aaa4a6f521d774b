/** Who a request acts for, as the authorizer (or the hub's in-function check) established it. */
export interface Principal {
  user_id: string;
  auth_type: 'jwt' | 'api_key';
  scopes: string[];
  roles: string[];
}

import { profileEditOperation } from './profile-edit.js';

/** change_city: `city` 0-50 characters, no control characters; `data: {profile}`. */
export const changeCity = profileEditOperation('city', 0, 50, { summary: 'A city', value: 'Shanghai' });

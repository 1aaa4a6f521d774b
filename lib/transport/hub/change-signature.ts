import { profileEditOperation } from './profile-edit.js';

/** change_signature: `signature` 0-200 characters, no control characters; `data: {profile}`. */
export const changeSignature = profileEditOperation('signature', 0, 200, { summary: 'A signature', value: 'At every expo.' });

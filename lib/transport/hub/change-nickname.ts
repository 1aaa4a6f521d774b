import { profileEditOperation } from './profile-edit.js';

/** change_nickname: `nickname` 1-30 characters, no control characters; `data: {profile}`. */
export const changeNickname = profileEditOperation('nickname', 1, 30, { summary: 'Rename', value: 'Booth hunter' });

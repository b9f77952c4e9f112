/** A part of the folder command `beta`, not a command of its own. */
export const description = 'a folder';

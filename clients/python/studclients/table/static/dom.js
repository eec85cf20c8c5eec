// The page's one DOM helper, shared by its scripts: the element with this id.

export const $ = (id) => document.getElementById(id);

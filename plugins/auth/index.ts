import type { JunctionPlugin } from '../../core/index.js';

/** The built-in `auth` plugin (its features land with their own issue; for now it registers nothing). */
const plugin: JunctionPlugin = {
  name: 'auth',
  register() {},
};

export default plugin;

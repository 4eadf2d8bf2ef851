import type { JunctionPlugin } from '../../core/index.js';

/** The built-in `tracker` plugin (its features land with their own issue; for now it registers nothing). */
const plugin: JunctionPlugin = {
  name: 'tracker',
  register() {},
};

export default plugin;

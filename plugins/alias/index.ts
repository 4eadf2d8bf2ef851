import type { JunctionPlugin } from '../../core/index.js';

/** The built-in `alias` plugin (its features land with their own issue; for now it registers nothing). */
const plugin: JunctionPlugin = {
  name: 'alias',
  register() {},
};

export default plugin;

import type { JunctionPlugin } from '../../core/index.js';

/** The built-in `flux` plugin (its features land with their own issue; for now it registers nothing). */
const plugin: JunctionPlugin = {
  name: 'flux',
  register() {},
};

export default plugin;

/**
 * An example Junction plugin (see docs/plugins.md). It adds `GET /greeting?name=...`, counts the
 * greetings it gave in its own durable store, and logs when packages are deployed.
 *
 * Load it from config.yaml:
 *
 *   plugins:
 *     - name: auth
 *     - path: ./examples/plugins/greeting.js
 *       options: { greeting: Welcome }
 */
export default {
  name: 'greeting',
  dependsOn: [],

  register(app, options) {
    const greeting = typeof options.greeting === 'string' ? options.greeting : 'Hello';
    const store = app.storage.store('greeting');
    this.unsubscribe = app.events.on('package.deployed', ({ name, version }) =>
      app.logger.info({ plugin: 'greeting' }, `package ${name} ${version} deployed`),
    );

    app.route({
      method: 'GET',
      url: '/greeting',
      schema: {
        summary: 'A greeting, and how many were given so far',
        querystring: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
        },
        response: {
          200: {
            type: 'object',
            properties: { message: { type: 'string' }, count: { type: 'integer' } },
          },
        },
      },
      handler: async (request) => {
        const count = ((await store.get('count')) ?? 0) + 1;
        await store.put('count', count); // durable before we answer
        return { message: `${greeting}, ${request.query.name ?? 'world'}!`, count };
      },
    });
  },

  stop() {
    this.unsubscribe?.();
  },
};

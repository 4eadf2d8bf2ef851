// Each exported function is a service named <className>.<methodName>: this module is `Greeter`,
// so these are `Greeter.greet`, `Greeter.echo` and `Greeter.welcome`.
import { greeting, LANGUAGES } from './text/Greetings.js';

/** GET /api/hello/{name}?lang=fr → { message: "Bonjour, Ada!" } */
export async function greet(input, ctx) {
  const name = String(input.name ?? 'world');
  if (name.length > 100) {
    // A numeric `status` on a thrown error becomes the HTTP status of the alias call.
    throw Object.assign(new Error('name: at most 100 characters'), {
      status: 400,
      code: 'HELLO_NAME_TOO_LONG',
    });
  }
  const lang = input.lang ?? 'en';
  if (!LANGUAGES.includes(lang)) {
    throw Object.assign(new Error(`lang: one of ${LANGUAGES.join(', ')}`), {
      status: 400,
      code: 'HELLO_LANG',
    });
  }
  ctx.log.info(`greeting ${name} in ${lang}`);
  return { message: greeting(name, lang) };
}

/** Answers what it was given, and who asked: handy to see what an alias passes on. */
export async function echo(input, ctx) {
  return { input, user: ctx.user, package: ctx.package };
}

/** A service calling another one through ctx.invoke. */
export async function welcome(input, ctx) {
  const { message } = await ctx.invoke('Greeter.greet', { name: input.name, lang: input.lang });
  return { message: `${message} Welcome to Junction.` };
}

// A module imported by Greeter.js (imports are relative, within the package's code/ folder).
// Its exported functions are services too: `text.Greetings.greeting`.
const WORDS = { en: 'Hello', fr: 'Bonjour', de: 'Hallo', es: 'Hola' };

export const LANGUAGES = Object.keys(WORDS);

export function greeting(name, lang = 'en') {
  return `${WORDS[lang] ?? WORDS.en}, ${name}!`;
}

// Loaded by mocha before every test file (.mocharc.json "require").
import 'reflect-metadata';

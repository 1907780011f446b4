// Lighthouse's default (mobile) settings, waiting for the app to start (lighthouse-wait.mjs).
import { wait } from "./lighthouse-wait.mjs";

export default { extends: "lighthouse:default", settings: wait };

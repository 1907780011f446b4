// Lighthouse's desktop preset, waiting for the app to start (lighthouse-wait.mjs).
import desktop from "lighthouse/core/config/desktop-config.js";
import { wait } from "./lighthouse-wait.mjs";

export default { ...desktop, settings: { ...desktop.settings, ...wait } };

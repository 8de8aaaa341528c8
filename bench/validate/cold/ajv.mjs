// Ajv as the cold-start benchmark loads it (bundled by esbuild for the page).
export { default as Ajv } from "ajv";
export { default as Ajv2020 } from "ajv/dist/2020.js";

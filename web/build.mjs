// Builds the dashboard into one folder of static files that `squeeze serve` serves at /ui/:
// index.html, style.css and assets/app.js (src/ and Chart.js bundled by esbuild).
//   node build.mjs [--out DIR]     (default ../build/web, beside build/squeeze)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const flag = process.argv.indexOf('--out');
const out = resolve(flag > 0 ? process.argv[flag + 1] : join(here, '..', 'build', 'web'));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: true,
  target: ['es2020'],
  outfile: join(out, 'assets', 'app.js'),
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) copyFileSync(join(here, f), join(out, f));
console.log(`dashboard built in ${out} (Node ${process.version})`);

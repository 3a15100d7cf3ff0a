// Where the page's files are: `web/` next to this module (src/dashboard/web from a checkout,
// dist/dashboard/web in a build: `npm run build` copies it there, tsc does not), and uPlot from the
// installed package (no CDN: the page works offline). A build without the page fails at start with
// what is missing, rather than serving 404s.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_ROOT = fileURLToPath(new URL('./web/', import.meta.url));

const UPLOT_DIR = path.dirname(fileURLToPath(import.meta.resolve('uplot/dist/uPlot.iife.min.js')));

/** Files served from outside `web/`, by request path. */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  '/vendor/uPlot.iife.min.js': path.join(UPLOT_DIR, 'uPlot.iife.min.js'),
  '/vendor/uPlot.min.css': path.join(UPLOT_DIR, 'uPlot.min.css'),
};

/** The files the page cannot open without (index.html loads the rest). */
export function requiredAssets(webRoot: string): string[] {
  return [path.join(webRoot, 'index.html'), path.join(webRoot, 'app.js'), ...Object.values(VENDOR_FILES)];
}

/** Resolves a request path inside `webRoot`; undefined for anything outside it or of a type not served. */
export function webFile(webRoot: string, pathname: string, servedTypes: ReadonlySet<string>): string | undefined {
  const rel = pathname === '/' ? 'index.html' : pathname.slice(1);
  const file = path.resolve(webRoot, rel);
  const root = webRoot.endsWith(path.sep) ? webRoot : `${webRoot}${path.sep}`;
  return file.startsWith(root) && servedTypes.has(path.extname(file)) ? file : undefined;
}

export function assertAssets(webRoot: string = WEB_ROOT): void {
  const missing = requiredAssets(webRoot).filter((f) => !existsSync(f));
  if (missing.length > 0)
    throw new Error(
      `the dashboard's page is missing (${missing.join(', ')}): a build must copy src/dashboard/web next to the compiled dashboard (npm run build does)`,
    );
}

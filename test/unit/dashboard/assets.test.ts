// Which file a request path serves: only files of the served types inside the page's folder, never
// anything beside or above it (the compiled code, the kubeconfig next to it).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requiredAssets, VENDOR_FILES, webFile } from '../../../src/dashboard/assets.ts';

const ROOT = path.join(path.sep, 'app', 'dist', 'dashboard', 'web') + path.sep;
const TYPES = new Set(['.html', '.js', '.css']);

describe('webFile', () => {
  it('serves index.html for / and files under the root', () => {
    expect(webFile(ROOT, '/', TYPES)).toBe(path.join(ROOT, 'index.html'));
    expect(webFile(ROOT, '/views/job.js', TYPES)).toBe(path.join(ROOT, 'views', 'job.js'));
  });

  it('accepts a root given without its trailing separator', () => {
    expect(webFile(ROOT.slice(0, -1), '/app.js', TYPES)).toBe(path.join(ROOT, 'app.js'));
  });

  it('refuses paths that leave the root, or a sibling folder sharing its prefix', () => {
    expect(webFile(ROOT, '/../server.js', TYPES)).toBeUndefined();
    expect(webFile(ROOT, '/views/../../index.js', TYPES)).toBeUndefined();
    expect(webFile(ROOT.slice(0, -1), '/../web-other/x.js', TYPES)).toBeUndefined();
  });

  it('refuses types it does not serve', () => {
    expect(webFile(ROOT, '/app.js.map', TYPES)).toBeUndefined();
    expect(webFile(ROOT, '/kubeconfig', TYPES)).toBeUndefined();
  });
});

describe('requiredAssets', () => {
  it('names the page, its entry script and uPlot', () => {
    const required = requiredAssets(ROOT);
    expect(required).toContain(path.join(ROOT, 'index.html'));
    expect(required).toContain(path.join(ROOT, 'app.js'));
    for (const f of Object.values(VENDOR_FILES)) expect(required).toContain(f);
    expect(Object.keys(VENDOR_FILES)).toEqual(['/vendor/uPlot.iife.min.js', '/vendor/uPlot.min.css']);
  });
});

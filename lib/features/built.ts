// The build features this package was built with (spec, cross-cutting rule 6; DESIGN §1). They are
// chosen when the package is built: `TESSERA_FEATURES=rerank npm run compile` writes built.json
// beside this file (scripts/features.js), and a package without that file has every feature.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const ALL_FEATURES = ['memory', 'rerank', 'mcp', 'code'] as const;
export type FeatureName = (typeof ALL_FEATURES)[number];

function load(): readonly FeatureName[] {
  let text: string;
  try {
    text = readFileSync(path.join(__dirname, 'built.json'), 'utf8');
  } catch {
    return ALL_FEATURES;
  }
  const listed: unknown = JSON.parse(text);
  if (!Array.isArray(listed) || !listed.every((f) => (ALL_FEATURES as readonly unknown[]).includes(f)))
    throw new Error(`${path.join(__dirname, 'built.json')} must list build features among ${ALL_FEATURES.join(', ')}`);
  return listed as FeatureName[];
}

/** The features built in, in ALL_FEATURES order (what /stats reports as `features`). */
export const BUILT_FEATURES: readonly FeatureName[] = ALL_FEATURES.filter((f) => load().includes(f));

export const hasFeature = (name: FeatureName): boolean => BUILT_FEATURES.includes(name);

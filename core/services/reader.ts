/**
 * Reads a package folder from disk: every file (hidden ones and symbolic links skipped), keyed by
 * its path relative to the folder with `/` separators, plus a fingerprint of the whole content so
 * that a change event which changed nothing (an editor's touch, a duplicate watch event) does not
 * redeploy.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PackageFolder {
  /** The folder's name (which the manifest's `name` must equal). */
  folder: string;
  /** Absolute path. */
  dir: string;
  /** Relative path (`code/approval/Checks.js`) → content. */
  files: Map<string, Buffer>;
  /** sha256 over every path and content. */
  fingerprint: string;
}

/** Rejects with a message naming the file when a file cannot be read (e.g. removed meanwhile). */
export async function readPackageFolder(dir: string, folder: string): Promise<PackageFolder> {
  const files = new Map<string, Buffer>();
  await walk(dir, '', files);
  const hash = createHash('sha256');
  for (const path of [...files.keys()].sort()) {
    hash.update(path).update('\0').update(files.get(path)!).update('\0');
  }
  return { folder, dir, files, fingerprint: hash.digest('hex') };
}

async function walk(root: string, prefix: string, files: Map<string, Buffer>): Promise<void> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true }).catch((err: unknown) => {
    throw new Error(`cannot read folder ${prefix || '.'} (${(err as NodeJS.ErrnoException).code})`);
  });
  for (const entry of entries) {
    // Hidden files are editors' swap and backup files, or VCS metadata: never part of a package.
    if (entry.name.startsWith('.')) continue;
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      await walk(root, path, files);
    } else if (entry.isFile()) {
      const content = await readFile(join(root, path)).catch((err: unknown) => {
        throw new Error(`cannot read ${path} (${(err as NodeJS.ErrnoException).code})`);
      });
      files.set(path, content);
    }
  }
}

import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project folder (where package.json is), from src/ or from the compiled dist/src/. */
function findProjectRoot (from: string): string {
  let folder = from
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder)
    if (parent === folder) throw new Error('package.json not found above the service code')
    folder = parent
  }
  return folder
}

export const projectRoot = findProjectRoot(dirname(fileURLToPath(import.meta.url)))

export function projectPath (...parts: string[]): string {
  return join(projectRoot, ...parts)
}

import { existsSync, realpathSync } from 'node:fs'
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

/** Whether the module at `moduleUrl` is the script Node was started with (`node dist/src/cli.js ...`). */
export function isEntryPoint (moduleUrl: string): boolean {
  const script = process.argv[1]
  if (script === undefined) return false
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl))
  } catch {
    return false
  }
}

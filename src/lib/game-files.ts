import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { projectPath } from './paths.js'

/**
 * Where hosted games' files are, the first that has a file winning:
 * public/games/<game_id>/, then, with the demo data on (DEMO), the built
 * example games (docs/kit.md): elsewhere an operator's own game that happens
 * to be called `phaser` is not given the example's files.
 */
export function gameFolders (demo: boolean): string[] {
  return [projectPath('public', 'games'), ...(demo ? [projectPath('dist', 'web', 'games')] : [])]
}

/** Whether a hosted game has its files: <folder>/<game_id>/index.html (a game id is a safe file name). */
export async function hasFiles (folders: string[], gameId: string): Promise<boolean> {
  for (const folder of folders) {
    if (await access(join(folder, gameId, 'index.html')).then(() => true, () => false)) return true
  }
  return false
}

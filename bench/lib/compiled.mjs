// The compiled service (npm run build) as the harness uses it: every dist/
// path of the harness is here, so a move in src/ is fixed in this one file.
// Import it only after ensureBuild (scripts/runtime.mjs).
import { boardScopes, keys } from '../../dist/src/store/keys.js'
import { PERIOD_KINDS, periodAt } from '../../dist/src/rules/periods.js'
import * as boardFormat from '../../dist/src/store/board-format.js'
import { computeSignature } from '../../dist/src/rules/signature.js'

/** The service's entry point, relative to the repository root (the cwd of the processes). */
export const SERVER_ENTRY = 'dist/src/server.js'

if (boardFormat.encode === undefined) {
  console.error('bench: dist/src/store/board-format.js has no `encode` export; rebuild with npm run build.')
  process.exit(1)
}
const { encode } = boardFormat

export { boardScopes, keys, encode, computeSignature, PERIOD_KINDS, periodAt }

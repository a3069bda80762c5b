import { type AuditEntry } from '../store/audit.js'
import { ListPage } from './answers.js'
import { OperationContext } from './context.js'
import { readInput, schemas } from './input.js'

/** The audit log: everyone's, and a game's. */

export function auditOperations ({ records, users, audit, auditPage, existingGame }: OperationContext) {
  return {
    /** The audit log, newest first: every game's and the users', or one game's (game_id); by action and actor. */
    async listAudit (input?: unknown): Promise<ListPage<AuditEntry>> {
      const query = readInput(schemas.listAudit, input)
      return await auditPage(query.game_id === undefined ? null : (await existingGame(query.game_id)).game_id, query)
    },

    /** One game's audit log (its records' changes), newest first. */
    async gameAudit (gameId: string, input?: unknown): Promise<ListPage<AuditEntry>> {
      const query = readInput(schemas.gameAudit, input)
      return await auditPage((await existingGame(gameId)).game_id, query)
    }
  }
}

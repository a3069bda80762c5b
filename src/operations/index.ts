import type { Actor } from '../store/audit.js'
import { operationContext, type AdminDeps } from './context.js'
import { gamesOperations } from './games.js'
import { keysOperations } from './keys.js'
import { usersOperations } from './users.js'
import { boardsOperations } from './boards.js'
import { namedBoardsOperations } from './named-boards.js'
import { achievementsOperations } from './achievements.js'
import { reviewOperations } from './review.js'
import { webhooksOperations } from './webhooks.js'
import { auditOperations } from './audit.js'
import { gamejoltOperations } from './gamejolt.js'
import { ratingsOperations } from './ratings.js'

/**
 * The operator operations (docs/interface.md#operator-api), shared by the /admin
 * routes and the command-line tool, so each rule is written once. Input comes
 * from JSON, form fields or command-line flags and is checked in the admin
 * order: missing_param, then invalid_param, then not_found, then already_exists.
 */

export function createAdmin (deps: AdminDeps) {
  /** The operations as `actor` makes them: every write is recorded in the audit log (store/audit.ts) once it is done, with the record before and after, secrets masked. */
  function operationsOf (actor: Actor) {
    const context = operationContext(deps, actor)
    return {
      ...gamesOperations(context),
      ...keysOperations(context),
      ...usersOperations(context),
      ...boardsOperations(context),
      ...namedBoardsOperations(context),
      ...achievementsOperations(context),
      ...reviewOperations(context),
      ...webhooksOperations(context),
      ...auditOperations(context),
      ...gamejoltOperations(context),
      ...ratingsOperations(context)
    }
  }

  return {
    /** The operations made by `actor` (a token over HTTP, the CLI's user, the service itself). */
    as: operationsOf
  }
}

export type Admin = ReturnType<typeof createAdmin>

/** The operations of one actor. */
export type AdminOperations = ReturnType<Admin['as']>

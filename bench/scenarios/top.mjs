// top20 and top100: the head of the board (GET /api/rank?action=top) with
// limit=20 and limit=100. The same request every time.

function top (limit, targets) {
  return {
    name: `top${limit}`,
    targets,
    makeFeed: ({ board, key }) => ({
      request: { method: 'GET', path: `/api/rank?action=top&api_key=${key.api_key}&game_id=${board.gameId}&limit=${limit}` }
    })
  }
}

export const top20 = top(20, { p99Flat: true })
export const top100 = top(100, { p99Flat: true })

// gamesList: GET /api/games?limit=20, the first page of the public games
// list (docs/ratings.md#the-games-list), on a platform of GAMES_LISTED
// games: one script call in the index's slot (its order, its cards, the
// address's rate-limit counter). The same request every time, as a front
// page's.

export const gamesList = {
  name: 'games list, first 20',
  makeFeed: () => ({ request: { method: 'GET', path: '/api/games?limit=20' } })
}

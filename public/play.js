// The play page: leaderboard, own rank, rating widget and play-time reports
// around the game's iframe. It reads what the server injected into
// window.__platform (gameId, username, canSubmit) and window.__play.
(() => {
  'use strict'
  const platform = window.__platform
  const settings = window.__play
  const $ = (selector) => document.querySelector(selector)

  async function api (method, url, fields) {
    const init = { method, credentials: 'same-origin', headers: {} }
    if (fields !== undefined) init.body = new URLSearchParams(fields)
    const response = await fetch(url, init)
    return await response.json()
  }

  // Leaderboard and own rank -------------------------------------------------
  async function refreshBoard () {
    const board = await api('GET', `/play/${encodeURIComponent(platform.gameId)}/board`)
    const list = $('#board')
    list.replaceChildren()
    if (!board.ok) {
      $('#board-status').textContent = board.message
      return
    }
    for (const item of board.data.items) {
      const entry = document.createElement('li')
      entry.value = item.rank
      // <bdi>: a name in another script direction cannot reorder the score beside it.
      const name = document.createElement('bdi')
      name.textContent = item.player_name
      entry.append(name, ` — ${item.score}`)
      if (item.player_name === platform.username) entry.className = 'me'
      list.append(entry)
    }
    $('#board-status').textContent = board.data.total === 0 ? 'No scores yet: be the first.' : `${board.data.total} players`
    if (platform.username !== null) {
      const mine = await api('GET', `/api/rank?action=me-self&game_id=${encodeURIComponent(platform.gameId)}`)
      $('#my-rank').textContent = !mine.ok
        ? mine.message
        : mine.data.best_score === null
          ? 'You have no score yet.'
          : `Your best: ${mine.data.best_score}, rank ${mine.data.rank ?? '(hidden)'} of ${mine.data.total_players}`
    }
  }

  // Rating: ten half-star buttons, 1..10 -------------------------------------
  function showRating (data) {
    for (const button of document.querySelectorAll('.stars button')) {
      const value = Number(button.dataset.value)
      button.classList.toggle('on', data.mine !== null ? value <= data.mine : value <= Math.round(data.avg))
      button.setAttribute('aria-checked', String(data.mine === value))
    }
    $('#rating-summary').textContent = data.count === 0
      ? 'No ratings yet.'
      : `Average ${(data.avg / 2).toFixed(2)} stars from ${data.count} rating${data.count === 1 ? '' : 's'}` +
        (data.mine === null ? '' : `; yours: ${data.mine / 2}`)
  }

  async function loadRating () {
    if (platform.username === null) return
    const rating = await api('GET', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`)
    if (rating.ok) showRating(rating.data)
  }

  function buildStars () {
    const stars = $('.stars')
    if (stars === null) return
    for (let value = 1; value <= 10; value++) {
      const button = document.createElement('button')
      button.type = 'button'
      button.dataset.value = String(value)
      button.setAttribute('role', 'radio')
      button.setAttribute('aria-label', `${value / 2} stars`)
      button.className = value % 2 === 1 ? 'half-left' : 'half-right'
      const glyph = document.createElement('span')
      glyph.textContent = '★'
      glyph.setAttribute('aria-hidden', 'true')
      button.append(glyph)
      button.addEventListener('click', async () => {
        const result = await api('POST', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`, { stars: String(value) })
        if (result.ok) showRating(result.data)
        else $('#rating-summary').textContent = result.message
      })
      stars.append(button)
    }
    $('#rating-clear')?.addEventListener('click', async () => {
      const result = await api('DELETE', `/api/rate?game_id=${encodeURIComponent(platform.gameId)}`)
      if (result.ok) showRating(result.data)
    })
  }

  // Play time: counted only while the page is visible ------------------------
  function startPlaytime () {
    if (platform.username === null) return
    let visibleMs = 0
    let visibleSince = document.visibilityState === 'visible' ? performance.now() : null
    const settle = () => {
      if (visibleSince !== null) {
        const now = performance.now()
        visibleMs += now - visibleSince
        visibleSince = now
      }
    }
    document.addEventListener('visibilitychange', () => {
      settle()
      visibleSince = document.visibilityState === 'visible' ? performance.now() : null
    })
    setInterval(async () => {
      settle()
      const seconds = Math.min(300, Math.floor(visibleMs / 1000))
      if (seconds < 1) return
      visibleMs -= seconds * 1000
      const report = await api('POST', '/api/playtime', { game_id: platform.gameId, seconds: String(seconds) })
      if (report.ok) {
        $('#playtime').textContent = `You played ${report.data.user_playtime_seconds} s here; everyone: ${report.data.total_playtime_seconds} s.`
      }
    }, settings.playtimeReportMs)
  }

  // Logout (logging in happens on /login, away from the game) ---------------
  $('#logout')?.addEventListener('click', async () => {
    await api('POST', '/auth/logout', {})
    window.location.reload()
  })

  // The game tells the page when it has submitted a score.
  window.addEventListener('message', (event) => {
    if (event.origin === window.location.origin && event.data?.type === 'ranking:submitted') refreshBoard()
  })

  buildStars()
  refreshBoard()
  loadRating()
  startPlaytime()
})()

-- The rating stats hash's fields (includes/rating-weights.lua), in the
-- order its readers take them, and the `weights` value that says they are
-- kept this way ('1' was the version before's: the record's own counted
-- seconds, moved by each report, and w:<user> for a rating weighing less
-- than fully). Literal, not built: every call of a script runs its top
-- level again.
local WEIGHTS_KEPT = '2'
local RATING_STATS_FIELDS = {'weights', 'sum', 'count', 'wsec', 'wsum', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10'}

"""See a game: self-contained HTML pages of logged games and solved positions
(``fastmach view``; the pages are built in ``pages``)."""
from fastmach.view.pages import (ViewGame, card_html, game_page, index_page, meld_faces,
                                 position_page, read_games, solution_html, split_melds,
                                 state_html, table_marks, write_page, write_views)

__all__ = ["read_games", "ViewGame", "game_page", "index_page", "position_page",
           "solution_html", "meld_faces", "table_marks", "write_views", "write_page",
           "card_html", "split_melds", "state_html"]

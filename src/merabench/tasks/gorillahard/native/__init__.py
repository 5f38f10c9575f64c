"""GorillaHard through native function calling (`--tool-mode native`), beside the leaderboard's text
protocol: the row's catalog sent as OpenAI `tools` (tools.py), the prompt without the pasted catalog
and format block and the dialogue history replayed as tool calls (prompt.py), the model's tool calls
mapped back to the card's envelope (envelope.py) and scored by the same scorer with the format
checks left out (task.py). README, "GorillaHard through native tool calls", has the request shape."""

"""Niuniu (牛牛): five variants on one engine - niuniu.hundred, niuniu.banker,
niuniu.tongbi, niuniu.classic and niuniu.yuele. Hands in :mod:`.hands`, table rules in
:mod:`.rules`, exact odds in :mod:`.probability`, the hand's state machine in
:mod:`.engine`."""

"""二八杠 and 推筒子 on the 40-tile 筒子 set."""

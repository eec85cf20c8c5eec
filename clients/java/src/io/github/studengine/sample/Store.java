package io.github.studengine.sample;

import io.github.studengine.stud.v1.HandUpdate;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The newest state of each hand. The server keeps nothing, so the back-end does: a next
 * state replaces the stored one only if the stored one is still the state it was computed
 * from (compare-and-set on seq).
 */
final class Store {
  private final ConcurrentMap<String, HandUpdate> hands = new ConcurrentHashMap<>();

  boolean create(HandUpdate first) {
    return hands.putIfAbsent(first.getHandId(), first) == null;
  }

  HandUpdate get(String handId) {
    return hands.get(handId);
  }

  /** Stores next if the hand's stored seq is still expectedSeq; false otherwise. */
  boolean compareAndSet(long expectedSeq, HandUpdate next) {
    HandUpdate current = hands.get(next.getHandId());
    if (current == null || current.getSeq() != expectedSeq || next.getSeq() <= expectedSeq) {
      return false;
    }
    return hands.replace(next.getHandId(), current, next);
  }
}

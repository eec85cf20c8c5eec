package stud

import (
	"sync"

	studv1 "github.com/stud-engine/stud-engine/clients/go/gen/stud/v1"
)

// Store keeps the newest state of each hand. The server keeps nothing, so the back-end
// does: a hand's next state replaces the stored one only if the stored one is still the
// state it was computed from (compare-and-set on seq), so that two writers (a retry, a
// clock, a second replica) never move a hand twice or back in time.
type Store struct {
	mu    sync.Mutex
	hands map[string]*studv1.HandUpdate
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{hands: map[string]*studv1.HandUpdate{}} }

// Create stores a new hand's first state; false if the hand is already stored.
func (s *Store) Create(update *studv1.HandUpdate) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, found := s.hands[update.GetHandId()]; found {
		return false
	}
	s.hands[update.GetHandId()] = update
	return true
}

// Get returns the newest stored state of a hand (nil if none).
func (s *Store) Get(handID string) *studv1.HandUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hands[handID]
}

// CompareAndSet stores next if the hand's stored seq is still expectedSeq and next comes
// after it; false (nothing changed) otherwise: read the newest state and decide again.
func (s *Store) CompareAndSet(expectedSeq uint64, next *studv1.HandUpdate) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	current, found := s.hands[next.GetHandId()]
	if !found || current.GetSeq() != expectedSeq || next.GetSeq() <= expectedSeq {
		return false
	}
	s.hands[next.GetHandId()] = next
	return true
}

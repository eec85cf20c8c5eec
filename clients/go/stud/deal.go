package stud

// The verifiable deal (issue 32, docs/security.md): HMAC_DRBG with SHA-256 (NIST SP
// 800-90A Rev. 1, section 10.1.2; no reseed, no additional input, no prediction
// resistance) seeded with the server's seed, the hand id and the players'
// contributions, driving a Fisher-Yates shuffle with rejection sampling.

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

const (
	dealPersonalization = "stud-engine/deal/v1"
	generateBytes       = 256 // bytes per DRBG Generate call of the shuffle
	// ContributionBytes is the size of this client's contributions (16 to 64 allowed).
	ContributionBytes = 32
)

// HmacDrbg is HMAC_DRBG (SHA-256), NIST SP 800-90A Rev. 1 section 10.1.2.
type HmacDrbg struct{ key, value []byte }

// NewHmacDrbg instantiates the DRBG.
func NewHmacDrbg(entropy, nonce, personalization []byte) *HmacDrbg {
	d := &HmacDrbg{key: make([]byte, 32), value: bytes.Repeat([]byte{1}, 32)}
	d.update(append(append(append([]byte{}, entropy...), nonce...), personalization...))
	return d
}

func (d *HmacDrbg) mac(parts ...[]byte) []byte {
	m := hmac.New(sha256.New, d.key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

func (d *HmacDrbg) update(provided []byte) {
	d.key = d.mac(d.value, []byte{0}, provided)
	d.value = d.mac(d.value)
	if len(provided) == 0 {
		return
	}
	d.key = d.mac(d.value, []byte{1}, provided)
	d.value = d.mac(d.value)
}

// Generate returns the next n bytes (one Generate call).
func (d *HmacDrbg) Generate(n int) []byte {
	out := make([]byte, 0, n+32)
	for len(out) < n {
		d.value = d.mac(d.value)
		out = append(out, d.value...)
	}
	d.update(nil)
	return out[:n]
}

// Deal is the deck (card = rank*4 + suit, deck[0] dealt first) of a server seed, a hand
// id and the contributions in seat order.
func Deal(serverSeed, handID []byte, contributions [][]byte) []int {
	personalization := []byte(dealPersonalization)
	for _, c := range contributions {
		personalization = binary.BigEndian.AppendUint16(personalization, uint16(len(c)))
		personalization = append(personalization, c...)
	}
	drbg := NewHmacDrbg(serverSeed, handID, personalization)
	var buffer []byte
	word := func() uint64 {
		if len(buffer) < 4 {
			buffer = drbg.Generate(generateBytes)
		}
		w := binary.BigEndian.Uint32(buffer)
		buffer = buffer[4:]
		return uint64(w)
	}
	deck := make([]int, 52)
	for i := range deck {
		deck[i] = i
	}
	for i := 51; i > 0; i-- {
		n := uint64(i + 1)
		limit := (1 << 32) - (1<<32)%n
		w := word()
		for w >= limit {
			w = word()
		}
		j := w % n
		deck[i], deck[j] = deck[j], deck[i]
	}
	return deck
}

// NewContribution is a player's entropy from the CSPRNG (crypto/rand).
func NewContribution() ([]byte, error) {
	c := make([]byte, ContributionBytes)
	_, err := rand.Read(c)
	return c, err
}

// CardName names a card index as the engine does: 51 -> "As".
func CardName(card int) string {
	return string([]byte{"23456789TJQKA"[card/4], "cdhs"[card%4]})
}

// DealProof is what a finished hand dealt with a ticket reveals.
type DealProof struct {
	HandID, Commitment, ServerSeed string
	Contributions, Deck            []string
}

// VerifyDeal checks a proof: the seed's SHA-256 is the commitment shown before the
// deal, the contributions are the ones sent (hex, seat order; nil: not checked), and the
// revealed deck is the one seed, hand id and contributions make. The error names the
// field that fails.
func VerifyDeal(proof DealProof, sent [][]byte) error {
	seed, err := hex.DecodeString(proof.ServerSeed)
	if err != nil || len(seed) != 32 {
		return fmt.Errorf("server_seed: not 32 bytes of hex")
	}
	sum := sha256.Sum256(seed)
	if hex.EncodeToString(sum[:]) != proof.Commitment {
		return fmt.Errorf("server_seed: its SHA-256 is not the commitment %s", proof.Commitment)
	}
	handID, err := hex.DecodeString(proof.HandID)
	if err != nil || len(handID) != 16 {
		return fmt.Errorf("hand_id: not 16 bytes of hex")
	}
	contributions := make([][]byte, len(proof.Contributions))
	for i, c := range proof.Contributions {
		if contributions[i], err = hex.DecodeString(c); err != nil {
			return fmt.Errorf("contributions[%d]: not hex", i)
		}
		if sent != nil && (i >= len(sent) || !bytes.Equal(sent[i], contributions[i])) {
			return fmt.Errorf("contributions[%d]: not the one sent", i)
		}
	}
	if sent != nil && len(sent) != len(contributions) {
		return fmt.Errorf("contributions: %d revealed, %d sent", len(contributions), len(sent))
	}
	deck := Deal(seed, handID, contributions)
	if len(proof.Deck) != len(deck) {
		return fmt.Errorf("deck: %d cards, not %d", len(proof.Deck), len(deck))
	}
	for i, card := range deck {
		if proof.Deck[i] != CardName(card) {
			return fmt.Errorf("deck: card %d is %s, the seed and contributions make %s",
				i, proof.Deck[i], CardName(card))
		}
	}
	return nil
}

package stud

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// NIST CAVP HMAC_DRBG SHA-256, no reseed, no PR, no additional input, COUNT = 0.
func TestHmacDrbgKnownAnswer(t *testing.T) {
	d := NewHmacDrbg(unhex(t, "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"),
		unhex(t, "659ba96c601dc69fc902940805ec0ca8"), nil)
	d.Generate(128)
	want := "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89d54fbb978a15b5c443c9ec21036d2460" +
		"b6f73ebad0dc2aba6e624abf07745bc107694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde06" +
		"68961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8"
	if got := hex.EncodeToString(d.Generate(128)); got != want {
		t.Fatalf("got %s", got)
	}
}

var vectorDeck = []int{51, 12, 22, 47, 40, 50, 21, 5, 28, 27, 19, 9, 31, 26, 18, 0, 45, 23, 46,
	43, 29, 33, 36, 15, 49, 42, 6, 20, 4, 34, 25, 32, 30, 35, 44, 38, 41, 37, 14, 3, 17, 10, 24,
	11, 2, 48, 7, 16, 39, 8, 13, 1}

func vectorProof() DealProof {
	names := make([]string, len(vectorDeck))
	for i, c := range vectorDeck {
		names[i] = CardName(c)
	}
	return DealProof{
		HandID:     "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
		Commitment: "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
		ServerSeed: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
		Contributions: []string{"616c69636527732062726f7773657220656e74726f70792030303031",
			"626f6227732062726f7773657220656e74726f7079203030303030303032"},
		Deck: names,
	}
}

// The documented test vector (docs/security.md).
func TestDealVector(t *testing.T) {
	p := vectorProof()
	got := Deal(unhex(t, p.ServerSeed), unhex(t, p.HandID),
		[][]byte{unhex(t, p.Contributions[0]), unhex(t, p.Contributions[1])})
	if !reflect.DeepEqual(got, vectorDeck) {
		t.Fatalf("got %v", got)
	}
	if err := VerifyDeal(p, nil); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyDealNamesTheField(t *testing.T) {
	seed := vectorProof()
	seed.ServerSeed = strings.Repeat("00", 32)
	swapped := vectorProof()
	swapped.Deck[0], swapped.Deck[1] = swapped.Deck[1], swapped.Deck[0]
	changed := vectorProof()
	changed.Contributions[1] = changed.Contributions[0]
	for field, p := range map[string]DealProof{"server_seed": seed, "deck": swapped} {
		if err := VerifyDeal(p, nil); err == nil || !strings.HasPrefix(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	sent := [][]byte{unhex(t, vectorProof().Contributions[0]), unhex(t, vectorProof().Contributions[1])}
	if err := VerifyDeal(changed, sent); err == nil || !strings.HasPrefix(err.Error(), "contributions[1]") {
		t.Errorf("contributions: %v", err)
	}
	if err := VerifyDeal(changed, nil); err == nil || !strings.HasPrefix(err.Error(), "deck") {
		t.Errorf("contributions unchecked: %v", err)
	}
}

// Command mkicons draws LUPI Lab's PNG icons (web/icon-192.png and
// web/icon-512.png) — the same picture as web/icon.svg: a blue square, an
// orange region under a curved boundary, a dot and a square.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	for _, s := range []int{192, 512} {
		if err := write(s); err != nil {
			log.Fatal(err)
		}
	}
}

func write(size int) error {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	blue := color.RGBA{31, 78, 121, 255}
	orange := color.RGBA{230, 97, 1, 255}
	white := color.RGBA{255, 255, 255, 255}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			u, v := float64(x)/float64(size)*64, float64(y)/float64(size)*64
			c := blue
			// boundary roughly the SVG's curve: v = 50 − 38·((u−6)/52)^0.7
			t := math.Max(0, (u-6)/52)
			b := 50 - 38*math.Pow(t, 0.7)
			if u > 6 && v > b {
				c = orange
			}
			if math.Abs(v-b) < 1.5 && u > 6 {
				c = white
			}
			if (u-18)*(u-18)+(v-22)*(v-22) < 25 || (u > 40 && u < 50 && v > 40 && v < 50) {
				c = white
			}
			img.Set(x, y, c)
		}
	}
	f, err := os.Create("web/icon-" + itoa(size) + ".png")
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

func itoa(n int) string {
	if n == 192 {
		return "192"
	}
	return "512"
}

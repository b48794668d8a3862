package mcpguard

import (
	"bufio"
	"bytes"
	"io"
)

// readBuffer is the size of the buffer a server's output is read through.
const readBuffer = 64 << 10

// readLines calls fn with each line of r that is not blank, without its
// newline and a CR before it, as `contractpin proxy` reads a stdio server:
// a last line without a newline still counts, and a line longer than max
// ends the reading with ErrLineTooLong before more than max bytes of it are
// held. The line passed to fn is valid until fn returns. It returns io.EOF
// at the end of r, or the first error of r or fn.
func readLines(r io.Reader, max int, fn func([]byte) error) error {
	br := bufio.NewReaderSize(r, readBuffer)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if len(line)+len(chunk) > max {
			return ErrLineTooLong
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		if complete {
			line = bytes.TrimSuffix(line, []byte{'\r'})
		}
		if !blank(line) {
			if err := fn(line); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return io.EOF
		}
		line = reuse(line)
	}
}

// blank reports whether line holds no message: only spaces, tabs and CRs.
func blank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r")) == 0
}

// reuse empties line for the next one, dropping a large buffer.
func reuse(line []byte) []byte {
	if cap(line) > readBuffer {
		return nil
	}
	return line[:0]
}

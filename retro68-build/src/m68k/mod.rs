//! 68k instruction decoding, the 68000 legalizer and the binary verifier.

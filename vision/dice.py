"""Read the dice on any photograph: where each die is, its top face, and bad throws.

The reader needs no calibration. It looks for pips (small dark round blobs on a bright body),
groups pips into faces by their shape and spacing, keeps only groups that form a real die
pattern (1 to 6: the layout is checked, not just the count), groups faces into dice, and
takes as the top face the face seen most squarely (its pips the roundest): on an oblique view
the side faces show too, foreshortened. A die whose best face is not clearly flat is reported
with ``value=None`` and ``reason="cocked"``; one cut by the image border, ``"out_of_view"``.

Every tuned number is a field of :class:`DiceConfig`; a calibration may pass its own.

Run as a module to see what it found (the same as ``tablier dice``)::

    python -m tablier.vision.dice IMAGE [--debug OUT_DIR] [--json] [--whole]
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from tablier.vision import dicenet
from tablier.vision.groups import components
from tablier.vision.imageio import read_image

REASONS = ("cocked", "on_die", "out_of_view")
"""Why a die that is seen has no value: the bad throws of the rules, plus a cut-off view."""


@dataclass(frozen=True)
class DiceConfig:
    """Tuned values of the dice reader (chosen on the tuning sets only)."""

    work_side: int = 1640
    """The image is shrunk so that its longer side is at most this many pixels."""
    large_pip: float = 6.0
    """When the median pip radius (working pixels) is above this, read at half the scale."""
    large_pip_ratio: float = 0.5
    """Only pips at least this round (minor/major) count toward ``large_pip``'s median, when
    there are any (since the twenty-third round: a die seen at a slant near the picture's
    edge, its side faces' pips run together into two long blobs, made the median and the
    picture was read at half the size, where its one was lost; tuning set ``out/dtune40``)."""
    small_pip: float = 3.0
    """When the median pip radius (working pixels) is below this, read again ``small_zoom``
    times as large (0: never). 3 since the forty-fourth round (2.5 before): pips of 2.5-3 px, drawn
    twice as large, keep their shapes and the faces their patterns (the fourteen dice tuning
    sets, with the board's normal: 27,651 of 27,747 dice at 2.5, 27,674 of 27,746 at 3,
    27,685 at 3.5, 27,693 at 4, 27,701 at 5 and always; without it 27,243 -> 27,313). The
    real photographs' tune split, larger pips on a cluttered table, asks no more: 3.5 and 4
    read a die fewer there (a pile of three dice, ``dice_20``) and, without ``one_spread``,
    the specks of a label as ones."""
    small_zoom: float = 2.0
    """How many times larger ``small_pip`` reads the picture again. 2; tried in the
    forty-fourth round with ``small_pip`` 2.5 on the fourteen dice tuning sets: 96 errors
    at 2 (27,651 of 27,747 right), 96 at 2.5 (27,658 of 27,754), 92 at 3 (27,656 of
    27,748), 126 at 4 (27,617 of 27,743)."""
    small_whole: int = 400_000
    """Read again at twice the size the whole picture, not only the part holding the pips
    found, when it has at most this many pixels (since the twenty-third round: a die whose
    pips were too small to be found at first lay outside that part and was never read;
    640x480 pictures are read whole, 1024x768 ones only near the pips found)."""
    block: int = 31
    """Window (pixels, odd) of the local mean that a pip must be darker than."""
    offset: float = 30.0
    """How much darker than the local mean (grey levels) a pixel must be to belong to a pip."""
    pip_area: tuple[int, int] = (8, 1500)
    """Smallest and largest pip area, pixels at the working scale."""
    split_area: float = 4.0
    """Blobs up to this many times the largest pip area are cut again (blurred pips)."""
    split_long: float = 0.5
    """A pip less round than this (minor/major) is cut again at half its depth too, and
    taken as the two rounder pips it falls into, if it does (0: never). Since the
    twenty-eighth round: two pips of a six run together through a blurred gap passed as one
    long pip (ratio 0.42-0.46) and the six was read as a three (``out/dtune40`` 40556,
    ``out/dtune30`` 30266). 0.5-0.75 read alike on the three dice tuning sets (+2 dice and
    an extra report gone with the board's normal, +4 without) and on the real photographs'
    tune split; at 0.5 fourteen board tuning boards (5069-5114) read every frame alike."""
    split_long_ratio: float = 0.6
    """Least roundness of each of the two pips a long pip falls into (``split_long``)."""
    split_row: float = 15.0
    """A blob too long for a pip whose cut at half its depth leaves it whole is cut across
    its length where its grey rises at least this much (grey levels) above the darkest point
    on either side, when that makes two or three pips of one shape (:func:`_split_row`; 0:
    never). Since the thirty-sixth round: on the real photographs' tune split a die that
    moved as it was taken (six_42, six_44) showed each column of its six as one blob (ratio
    0.17-0.20), its gaps only 20-60 grey lighter than its pips, and the six was lost. 10, 12
    and 15 read both (578 -> 580 of 587), 18 and 20 only six_42; at 15 the dice tuning sets read
    alike with the board's normal and without it (before ``split_row_round``, 10 lost a die
    without it), the ten 1024x768 board tuning boards gained a die (7,141 -> 7,142 of
    7,249) and six 1640x1232 ones read alike."""
    split_row_ratio: float = 0.4
    """Only blobs less round than this (minor/major) are cut as a row (``split_row``), and
    none less round than a quarter of ``split_row_round`` (three parts each that round make
    a row about a third as round: a cable or an edge is not looked at)."""
    split_row_round: float = 0.4
    """... and only into parts each at least this round: pips smeared along their row are
    nearly round again once cut (0.5-0.8 on the two sixes), a side face's flattened pips seen
    at a slant stay flat (0.28-0.34 in a straightened view of tuning board 5074, s01 frame 18,
    where such a row cut made a flat four's side face and the four was judged cocked; 0.4 and
    0.45 mended it, 0.5 lost one of the sixes)."""
    split_row_even: float = 2.0
    """... and only into parts whose lengths along the row differ at most this many times (a
    row of pips smeared alike; the two sixes' parts differ up to 1.4 times: 1.3 loses one)."""
    pip_fill: float = 0.8
    """Least ratio of a blob's area to the area of its moment ellipse (a pip is an ellipse)."""
    pip_ratio: float = 0.25
    """Least minor/major axis ratio of any pip (side faces included)."""
    pip_contrast: float = 45.0
    """Least grey-level difference between a pip and the die body around it."""
    shape_tolerance: float = 0.3
    """Largest shape difference between two pips of one face (affine-invariant measure)."""
    body_tolerance: float = 0.18
    """Largest relative difference of the die body's grey around two pips of one face."""
    depth_ratio: float = 0.5
    """Least ratio of the fainter to the deeper of two pips of one face, each pip's depth
    being how much darker it is than its body, over its body's grey (one ink: a die's edge
    or a dame's rim beside a face is fainter)."""
    shape_noise: float = 0.0
    """Extra shape difference allowed between pips of radius r pixels: shape_noise / r."""
    link: float = 9.5
    """Largest distance between neighbouring pips of one face, in pip radii."""
    pattern_tolerance: float = 0.9
    """Largest misfit of a face to its die pattern, in pip radii."""
    spacing: tuple[float, float] = (1.6, 4.0)
    """Range of the corner-pip offset from the face centre, in pip radii (per axis)."""
    six_aspect: tuple[float, float] = (0.6, 1.6)
    """Range of the row step of a six over its half column gap."""
    same_die: float = 12.5
    """A face this near another (pip radii) and clearly more foreshortened is its side face."""
    same_die_close: float = 8.0
    """Faces whose centres are nearer than this (pip radii) always belong to one die."""
    side_ratio_gap: float = 0.12
    """Roundness gap (minor/major) that marks one of two nearby faces as a side face."""
    side_max_ratio: float = 0.85
    """A face rounder than this is not taken for a side face by its position or its pips'
    size alone (``side_radius``)."""
    side_alignment: float = 0.8
    """|cos| between a side face's minor axis and its offset from the top face, at least."""
    side_darker: float = 0.8
    """A face between ``same_die_close`` and ``side_darker_reach`` pip radii from another,
    whose body is at most this times as bright, lying toward the camera from it
    (``side_toward``), is its side face: lit from above, a die's side faces are darker than
    its top, and those seen lie on the camera's side of it; two dice lying flat are lit alike.
    With the board's normal known the brighter face must also be turned to the board
    (``cocked_angle_board``). 0 turns it off. Since the thirty-seventh round (0 before): such
    side faces, too round and too far to be joined by shape or place, were reported as dice
    of their own (mostly cocked). Dice tuning sets (``out/dtune30``, ``out/dtune40``,
    ``out/tune_big``, ``out/dtune70``, ``out/dtune71``; 9,898 dice, 9,858 read right with the
    board's normal, 9,738 without): 9 and 11 extra dice fewer at 0.8 with
    ``side_darker_reach`` 15, none lost; 0.85 one more at 12.5 (a pair lit 0.84), but two dice
    lying side by side on tuning board 5108 were lit 0.85 apart. The board tuning boards
    (5108, 5110, 5069, 5124 at 1024x768; 5074, 5107 at 1640x1232) and the real tune split
    read alike: in the straightened views no pair was joined so."""
    side_darker_reach: float = 15.0
    """How far (pip radii) ``side_darker`` joins faces (``same_die`` at least). 15 since the
    thirty-seventh round: at 12.5 (``same_die``) five and six extra dice more on the dice
    tuning sets, with the board's normal and without; 16 alike."""
    side_darker_uncalibrated: bool = True
    """Without the board's normal, may ``side_darker`` join faces (the camera then taken to
    look straight down, and no face known to be turned to the board)?"""
    side_toward: float = 0.7
    """Least cos between the offset to such a darker face and the direction toward the
    camera (the nadir's image, or ``view_ray`` in a straightened view). 0.7 was set from the
    pairs of faces looked at on the dice tuning sets (of the side faces missed and darker than
    0.8, 15 of 19 lay 0.71-1.0 toward the picture's middle; of two dice, the darker 0.57 at
    most; throwaway ``out/r37/pairs.py``), not swept."""
    away_weight: float = 0.025
    """Weight (per pip radius) of being farther from the camera when picking the top face."""
    lit_weight: float = 2.0
    """Weight of a face's lighting (its body's grey over the brightest face's of the die)
    when picking the top face: light comes from above."""
    nadir_votes: int = 3
    """Dice showing side faces needed to place the nadir (else one direction for all)."""
    nadir_spread: float = 0.15
    """How far from parallel (eigenvalue ratio) the dice' lines must be to place the nadir."""
    side_size: float = 2.5
    """Two faces whose pips' long axes differ more than this many times are not of one die
    (since the twenty-third round: a dark dame read as a one, its "pip" five times a die's,
    took the die beside it as its side face, and the die was lost or judged cocked)."""
    size_spread: float = 2.5
    """A die whose top face's pips are more than this many times longer than those of the
    smallest-pipped die showing two pips or more is dropped (since the twenty-third round: a
    dark dame read as a one, or two dames as a two, no longer joined to a die beside them by
    ``side_size``, were reported as dice of their own)."""
    one_spread: float = 2.5
    """A one whose pip is more than this many times shorter than the pips of the
    largest-pipped die showing two pips or more is dropped: the dice of a throw are alike in
    size, and a one's pip is no smaller than the others'. New in the forty-fourth round: read
    twice as large (``small_pip`` 3), a side face's pip seen edgewise on a real photograph
    of the tune split (``two_43``) was reported as a one; the rendered tuning sets lose one
    die (a small cocked die judged by a one's pip), and at 2 ten true ones; 3 reads as off.
    Dice showing ones alone are not compared with each other (a dame taken for a one may be
    the largest)."""
    side_radius: float = 0.85
    """A nearby face with pips smaller than this times the other's is a side face, unless it
    is round (``side_max_ratio``; since the twentieth round: a one beside a die touching it
    was taken for that die's side face. Tuning seeds with two dice side by side, 5107-5110:
    2,939 -> 2,950 of 3,024 dice; 5085 695 of 725, one cocked die fewer judged bad; 5069,
    5084, 5074, 5077, 5080, 5070, 5089, 5060, 5091 and tablier dice's tuning sets alike)."""
    rival_radius: float = 0.6
    """A face with pips smaller than this times the top's cannot make the die look cocked."""
    min_face_ratio: float = 0.45
    """A lone face with pips flatter than this is no die (a side face or a stain)."""
    top_ratio: float = 0.55
    """A top face seen flat has pips at least this round (minor/major)."""
    cocked_angle: float = 24.0
    """Without calibration: a top face whose normal is this many degrees off the other dice'
    is cocked (two rough normals compared, hence more than ``cocked_angle_board``). 26 until
    the twenty-third round; on the tuning sets read without the board's normal
    (``out/dtune30``, ``out/tune_big``, ``out/dtune40``) 22-24 each gained 11-12 dice of
    5,953, and 21 and 20 lost a die on the real photographs' tune split."""
    cocked_angle_voted: float = 20.0
    """Without calibration: ``cocked_angle`` for two dice whose side faces both picked their
    top face's normal from its mirror (``odd_side_vote``). Fifty-fourth round, with
    ``odd_of_all``: of the tuning sets' frames with two such dice and no dame, the flat pairs
    lay at most 15.7 degrees apart (330 pairs), the pairs with a leaning die 16 or more (22 of
    22). ``out/dtune30``, ``out/dtune40``, ``out/tune_big`` read without the board's normal
    5,876 -> 5,883 of 5,945 dice at 16, 18 and 20 alike, the real photographs' tune split alike
    (580 of 587); at 20 without ``odd_of_all`` 5,876 and 579."""
    odd_of_all: bool = True
    """Without calibration, of three dice or more: a die is leaning when it disagrees with every
    other, not with the median of the others (of three dice one of which leans, a flat die's
    median is the mean of its agreement with the other flat die and its disagreement with the
    leaning one). Fifty-fourth round: alone, at ``cocked_angle_voted`` 24, the tuning sets
    5,876 -> 5,879, the real tune split alike."""
    top_by_vote: bool = True
    """With the board's normal known, each face of a die is judged by the normal its die's
    other faces vote for (``_board_cos``), not the nearer of its two mirrors, when the top
    face is chosen (since the twenty-third round: a flat die's side face, rounder than its
    top, had a mirror normal a few degrees off the board's, was taken for the top, and was
    then judged 88 degrees off and cocked; ``out/dtune30``, ``out/tune_big``,
    ``out/dtune40`` 5,896 -> 5,900 of 5,940 dice, the board tuning boards alike)."""
    odd_side_vote: bool = True
    """Without calibration, the side faces seen pick each top face's normal from its mirror
    before the dice' normals are compared (since the twenty-third round: the two mirror
    normals of a leaning die's top face let one agree with a flat die's; on the tuning sets
    read without the board's normal, 5,695 -> 5,740 of 5,953 dice, the real photographs'
    tune split alike)."""
    cocked_min_radius: float = 3.0
    """Only top faces whose pips are at least this large (pixels, working scale) take part in
    the cocked test: smaller pips give too rough a normal."""
    fine_faces: tuple[int, ...] = (1, 2, 3, 6)
    """Faces whose tilt is read from their pips' grey-level shapes (the others: from the
    threshold mask, or for 4 and 5 from the corner pips' spread)."""
    region_faces: tuple[int, ...] = (1, 2, 3)
    """Faces whose foreshortening is taken from the bright square around their pips (the top
    face as a whole, ``_region_cov``) when it stands clear of what lies around it: a one,
    two or three has too few pips for a sharp tilt (``fine_faces``). Since the thirty-seventh
    round, with the board's normal known (``region_uncalibrated``). Dice tuning sets read
    with the board's normal (``out/dtune30``, ``out/dtune40``, ``out/tune_big``,
    ``out/dtune70``, ``out/dtune71``; 9,898 dice): 9,858 right before, 9,860 with ones alone,
    9,861 with ones to threes (``region_step`` 0.12), 9,863 at 0.1 (taken) and 0.08, 9,860 at
    0.16; fours to sixes too, alike. On the prototype's count (throwaway
    ``out/r37/ones.py``), of 1,353 flat ones whose square was found 20 were judged 14 degrees
    or more off the board from their pip, 1 from their square."""
    region_uncalibrated: bool = False
    """Without the board's normal, ``region_faces`` too? Not taken: the tuning sets read
    without the normal 9,738 -> 9,755 of 9,898, but the real tune split 580 -> 579 (dice_36:
    a one seen on the camera's side of a die whose top shows a four, its square running on
    into that top, was judged leaning against the other die)."""
    region_step: float = 0.1
    """The face's square: pixels at least (1 - this) times as bright as its body."""
    region_ring: float = 2.2
    """Where the square is looked for: on a ring this many pip radii around the face's middle."""
    region_area: tuple[float, float] = (0.5, 1.6)
    """Range of the square's area, in die sizes squared."""
    region_solidity: float = 0.95
    """Least share of its convex hull the square fills."""
    region_offset: float = 0.1
    """Farthest the square's middle lies from the face's, in die sizes."""
    dame_normal: bool = True
    """Without a board normal: round dames seen beside the dice (ellipses on the board) give
    the board's normal, and each die's top face is judged against it (``cocked_angle_dame``),
    a lone die too; the net does not undo such a call. See :func:`_dame_normals`. Since the
    thirty-fourth round: of the tuning sets' cocked dice read without the board's normal, 52
    of 82 were read as a value on ``out/dtune40`` (15 of 17 alone in the frame). With it,
    ``out/dtune40``, ``out/dtune30``, ``out/tune_big`` 5,744 -> 5,818 of 5,932 dice with whole
    dames (5,843 with ``dame_in_view`` and the dames not believed where they find every die
    leaning); the real photographs' tune split alike (578 of 587;
    no dame found in any of them)."""
    cocked_angle_dame: float = 16.0
    """Without a board normal but with dames seen: a top face this many degrees off every
    normal the dames allow is cocked. A dame's normal is about as good as a calibration's
    (1.3 degrees off the truth at the median, 7.8 at most, on 587 outlines of 300 tuning
    frames), so the threshold is near ``cocked_angle_board``: on the tuning sets 24 gave
    5,764, 20 5,778, 16 5,788, 14 5,790, 10 5,790 (before ``cocked_min_radius_dame`` and the
    edges in colour)."""
    dame_dice_vote: bool = True
    """Where the dames allow normals more than 10 degrees apart (one dame alone: its outline's
    two mirrors), the normal the most dice agree with (within ``cocked_angle_dame``) is the
    board's; a tie keeps them all (fifty-fourth round: a die leaning toward the lone dame's
    wrong mirror was read as a value beside two flat dice; ``out/dtune30``, ``out/dtune40``,
    ``out/tune_big`` read without the board's normal 5,875 -> 5,876 of 5,945 dice, the real
    photographs' tune split alike)."""
    cocked_min_radius_dame: float = 2.0
    """With dames seen: only top faces whose pips are at least this large (pixels, working
    scale) are judged against them (the tuning sets: 3.0 5,793 dice, 2.5 5,803, 2.0 to 0
    5,809; one rough normal against a sharp one, not two rough ones)."""
    dame_fit: float = 0.02
    """A dame's outline: the mean distance of its edge points from the ellipse fitted to
    them, as a share of the ellipse's radius, at most this. On the tuning set ``out/dtune40``
    the outlines whose better normal lay within 6 degrees of the truth were 0.005 at the
    median, 0.016 at the 99th percentile; those 10 or more degrees off (two dames drawn
    overlapping, edges of the wood's grain) 0.016-0.046, all but five above 0.02. 0.03: 5,815
    tuning dice, 0.02: 5,818, 0.015: 5,817."""
    dame_in_view: float = 0.5
    """A dame cut by the picture's border counts when at least this share of its outline
    lies in the picture (and is seen all along). On the tuning sets: whole dames only 5,818
    dice, 5/6 5,828, 2/3 5,837, 1/2 5,838, 1/3 5,841, 1/4 5,842, 1/6 5,838; the real tune split alike
    (no dame found in it)."""
    dame_radius: tuple[float, float] = (0.5, 2.0)
    """A dame's radius, in die edges (the dice found give the edge): the least and most."""
    board_normal: tuple[float, float, float] | None = None
    """The board's normal in camera coordinates (x right, y down, z along the optical axis;
    either sign), from a calibration; when None the dice are compared with each other."""
    cocked_angle_board: float = 17.0
    """With a known board normal: a top face this many degrees off it is cocked."""
    side_only_angle: float = 40.0
    """With a known board normal: a die found whose top face is more than this many degrees
    off the board, within ``side_only_reach`` die sizes of a die judged less off it, is not
    reported: it is a side face of that die, found apart (``_side_faces_dropped``). No die's
    uppermost face leans more than 54.7 degrees (the angle between a face's normal and the
    cube's long diagonal), and two dice lying, even touching, are a die size apart or more.
    60 since the thirty-ninth round (two extra cocked reports on the ten dice tuning sets,
    judged 75 and 82 degrees off the board, 0.84 and 0.7 die from a die). 40 since the
    forty-first round, when the die beside need only lean less (before: no more than this
    angle) and near is by the top faces' or the reported centres: on the fourteen dice tuning
    sets eleven extra cocked reports 42-55 degrees off the board beside their own die went,
    none lost (30 read one more). 90 turns it off."""
    side_only_reach: float = 1.0
    """Die sizes (centre to centre) within which ``side_only_angle`` drops a face."""
    cocked_min_radius_board: float = 2.5
    """With a known board normal: pips smaller than this (working pixels) give a rougher
    normal, and their top face must be ``cocked_angle_small`` off the board to be cocked."""
    cocked_angle_small: float = 20.0
    """With a known board normal: the cocked angle for top faces with small pips."""
    view_ray: tuple[float, float, float] | None = None
    """For a straightened view (the board drawn as if seen from straight above, as the
    recogniser gives it): the direction from the die to the camera (x right, y down along the
    view, z up from the board). The view is the die projected onto the board along this ray,
    so a face leaning toward the camera can look square in it. The top face is then also
    judged as the camera saw it (an orthographic view along the ray), where its side faces
    tell its two mirror normals apart: ``cocked_angle_ray``. None: no such judgement."""
    side_toward_camera: float = 0.8
    """With ``view_ray``: a face less round than this that may be a side face of two dice
    joins one it lies toward the camera from, before the nearer (a side face of a die lying
    flat shows on the camera's side of its top face). Since the twenty-first round: of two
    dice side by side, the side face of one, seen between them, was joined to the other
    (nearer) die, which was then judged cocked, and the pair was called one stack. Tuning
    seeds 5107 710 -> 715 of 716, 5109 790 -> 794 of 800, 5103 362 -> 364 of 364; 5074
    729/730 -> 728/731 (a cocked die's faces grouped otherwise, its centre put 3 mm farther,
    12.5 mm from the truth: a miss and a stray); 5108, 5110, 5069, 5085, 5084, 5077, 5080,
    5070, 5060, 5091, 5092, 5104 and the stack sets 5088-5090 alike. For every face (a
    threshold of 1): 5109 796, but on 5069 a cocked die showing four faces of ratio
    0.80-0.91 was read as two. 0 turns it off."""
    side_round_ray: float = 1.25
    """With ``view_ray``: two faces farther apart than ``same_die_close`` whose pips'
    roundness (minor/major), squared and added, exceed this many times 1/cos^2 of the ray's
    lean from the board's normal are two dice, never a die and its side face. Seen along
    the ray and drawn onto the board, a face whose normal makes the angle a with the ray is
    foreshortened to cos(a)/cos(lean); two faces of one die have normals at right angles,
    so their roundness squared adds up to 1/cos^2(lean) at most (blur rounds pips, hence a
    margin). Since the forty-fifth round: of a three and a two lying flat side by side at
    1024x768 (tuning board 5108, s02 frame 12), the two (0.85 round) was taken for the
    three's side face (0.93) and the three judged cocked. On six board tuning sets (5069,
    5108, 5110, 5124 at 1024x768, 5074 and 5107 at 1640x1232) 4,332 dice right of 4,388
    without, 4,336 at 1.25 (two pairs read as two dice), 4,334 at 1.4 (one of them) and at
    1.1 (two cocked dice lost: blurred, their faces looked round). inf: no such test."""
    cocked_angle_ray: float = math.inf
    """With ``view_ray``: a top face this many degrees off the board, as seen along the ray
    with its side faces' vote, is cocked (also when ``cocked_angle_board`` lets it pass)."""
    ray_side_vote: float = 0.0
    """With ``view_ray``: least difference of the side faces' votes to pick a mirror normal in
    the view along the ray (with no clear vote, the normal nearer the board's is taken)."""
    side_vote: float = 0.3
    """Least difference of the side faces' votes (summed cosines) to pick one of the top
    face's two mirror normals by where its side faces lie."""
    focal: float = 0.85
    """Assumed focal length, as a share of the image's longer side (a 60-degree lens)."""
    size_per_radius: float = 11.0
    """Die edge length in pip radii (to report ``size``)."""
    one_radius: float = 1.25
    """The lone pip of a one is this much larger than other pips on the same dice."""
    border: float = 0.5
    """A die whose face centre is nearer the image border than this times its size is cut."""
    one_body: tuple[float, ...] = (2.0, 2.6, 3.2)
    """Rings (pip radii) around a lone pip that must be die body for it to be a one."""
    one_dark_share: float = 0.04
    """Largest share of dark samples on those rings (text, a label's print, a stain)."""
    stray_one: float = 0.1
    """Of the faces a linked group of pips makes with one pip left out, those whose left-out
    pip would not be read as a one count as this much less alike (``_shape_spread``, the
    largest shape difference of the kept pips; a two fits any two pips, so the likeness of
    its pips decides). Since the twenty-first round: a one lying against a two (tuning seed
    5107, s03 frame 10) linked with the two's pips, and the two was made of the one's pip
    and a pip of the two, the other pip of the two left out. 0 turns it off."""
    pair_shape_tolerance: float = 0.35
    """Largest shape difference between two lone pips for them to make a two
    (``_pair_twos``; ``shape_tolerance`` for pips that link). Since the thirty-eighth round
    (0.3 before): a two's pips lie far apart, so they do not link when their shapes differ
    just over ``shape_tolerance`` (small pips, 2-3 px, have rough shapes); each alone is no
    one (it is off the face's middle), and the two was lost: six twos of the fresh tuning
    sets ``out/dtune72``..``out/dtune74``. 0.35 finds four of them and one of
    ``out/dtune40`` (the other two stay lost; one of them was 0.37 apart). On the eight dice
    tuning sets, with the board's normal, 0.35, 0.45 and 0.6 read 7, 8 and 6 dice more (0.45
    and 0.6 with two more extra dice); without it, 0.35 read 8 more."""
    body_min: float = 80.0
    """Least grey level of the die body around a pip. 110 until the forty-first round, when
    dice in dim light (body about 100 grey, pips 90 darker) were missed, most of them cocked:
    on the fourteen dice tuning sets, with the board's normal, 110 / 100 / 90 / 80 / 70 / 60
    left 130 / 124 / 120 / 116 / 115 / 115 errors (80 also reports 44 more dice whose top
    face lies past the picture's border, rightly: those count only when reported); without
    it 554 / 541 (100) / 532 (80); the real tuning photographs and the six board tuning sets
    alike. Two fresh tuning sets read after the choice (``out/dtune81``, ``out/dtune82``):
    22 errors of 3,866 dice, 21 of 3,872."""
    clear_tolerance: float = 0.35
    """Most difference from the body measured round two lone pips (a share of it) along the
    line between them for them to make a two (``_pair_twos``; a dark gap between two dice
    is refused by the line's darkest point). Since the twenty-second round: at 1024x768 a
    blurred face is not evenly bright between a two's pips (tuning 5110 s03 frame 49: 27 %
    darker than round the pips), and a two linked to the die beside it was lost. Chosen on
    the tuning boards (docs/vision.md): 0.35 and 0.45 read alike, +5 dice on 18 boards;
    from 0.3 a cocked die of `out/dtune30` is also reported beside itself."""
    stray_two_clear: float = 1.0
    """Of the twos a group of three pips may leave, one whose pips have no clean die body
    between them counts as this much less alike (``_clear_between``; since the twenty-third
    round: of two dice touching at 1024x768, each a two, a pip of one linked with the
    other's, and the most alike pair was across the seam between them. Board tuning boards
    10,964 -> 10,970 of 11,161, 5088 one cocked die fewer judged bad; tablier dice's tuning
    sets and the real photographs' tune split alike)."""
    partition_max: int = 14
    """Linked groups of 7 up to this many pips are split by trying every die pattern in
    them (larger groups: by their links)."""
    partition_budget: int = 300
    """Most pip sets tried in one such group; past it the group is split by its links."""
    partition_strays: int = 1
    """Pips of such a group that may be left in no face when no split places them all: then
    faces fitting within ``partition_stray_misfit`` are kept if they place all other pips.
    Since the twenty-second round: the shadow between a six and a four lying side by side
    linked with both (tuning 5110, s04 frame 35) and the pair was read as three and two."""
    partition_unlit_strays: bool = True
    """Pips left over that are lit alike with no pip of the faces kept (a side face's, darker
    or brighter) do not count toward ``partition_strays``, and faces of fewer than four pips
    are then not kept (their pips are left over too). Since the forty-third round: a six and
    its side face's pips linked into one group through one pip lit between the two (tuning
    frame 77708); the split left three of the side face's pips over, too many, and the group
    was split by its links instead, making a four across both faces."""
    partition_stray_misfit: float = 0.5
    """Largest misfit (pip radii) of a face of a split that leaves pips over. Such a split
    is kept only when each of its faces has four pips or more (two dice side by side; a
    cocked die's top and side faces leave twos and threes) and no pip left over lies within
    a face."""
    pair_depth_ratio: float = 0.6
    """Two lone pips make a two only when the shallower is at least this share of the deeper
    (depth against the body round each, as ``depth_ratio``). Since the forty-second round: a
    flat one's pip paired with a pale pip on the side face beside it, across the face's
    edge, and the die was read as a two or judged cocked (tuning 74674, 78354). Chosen on the
    fourteen dice tuning sets: 0.6 and 0.7 two dice more right, 0.8 one."""
    two_radius_ratio: float = 1.45
    """A two's pips lie on one flat face, as far from the camera: the larger may be at most
    this many times the smaller's radius. Since the forty-second round: a one's pip linked
    to a side face's pip run into the dark of the die's edge (a larger blob) made a two
    (tuning 72058, 79104, 30713, 40024). Chosen on the fourteen dice tuning sets: 1.3 nine
    dice more right and nine less, 1.4 five and one, 1.45 four and none, 1.5 three."""
    complete_depth: float = 0.5
    """A two, three or four whose missing pips (the other corners of a four or five, the
    middle pips of a six; a two may be a four's side) all show where the pattern puts them
    is read as the larger face: each place holds a pip found but left out of every face (lit
    alike), or is darker than the die body around it by this share of the face's own pips'
    depth; a place on another face's pip holds none. Since the twenty-second round: at
    1024x768 a four whose pips on one side were blurred out of shape, faint on a dark dame
    or beside the other die read as a two (tuning 5108, 5110). Chosen on tuning 5108-5114:
    0.35 and 0.5 read alike, 0.8 one die fewer. inf turns it off."""
    complete_six_row: bool = True
    """A three may be one row of a six whose other row was lost (blur ran its pips together,
    or they were too faint): its other row is looked for as a two's other side is. Since the
    forty-second round: on the fourteen dice tuning sets six more dice right (four sixes read
    as threes, two judged cocked), none less; without the board's normal five."""
    complete_merge_rows: bool = True
    """Two threes each lying where the other's lost row would (``complete_six_row``,
    ``complete_row_stretch``), lit alike, are read as one six. Since the forty-third round: a
    six whose rows, farther apart than its blurred pips' shapes allow for its pattern, were
    found as two threes (tuning frames 71842, 10334, 78518); on the fourteen dice tuning sets
    three more dice right with the board's normal, none less; without it three more and two
    less (79432: a three joined to a row of another face)."""
    complete_row_stretch: tuple[float, ...] = (1.0, 1.15, 1.3)
    """How far a two's or three's lost other side (``complete_six_row``, and a two as a
    four's side) is looked for, in twice the face's own pip spacing (each is tried; the
    places showing the lost pips most clearly win): blur rounds a small face's pips, so it
    seems less foreshortened across its rows than it is and the other row lies farther. Since
    the forty-third round (1.0 alone before): on the fourteen dice tuning sets three more dice
    right (two sixes read as threes, then called cocked by the net, and a four read as a two),
    none less; 1.45 besides read alike."""
    net: bool = True
    """Ask the learned second opinion (:mod:`tablier.vision.dicenet`) about every die found
    (not those already out of view); False reads with the hand-written rules alone."""
    net_threshold: float = 0.8
    """Least probability of the net's class for it to overrule the rules (chosen on the net's
    validation frames and photos, never on a measuring set)."""
    net_uncock_threshold: float | None = None
    """Least probability of the net's value for it to undo the rules' call of a cocked die;
    None: ``net_uncock_board`` with the board's normal, else ``net_threshold``."""
    net_uncock_board: float = math.inf
    """``net_uncock_threshold``'s default with the board's normal known; inf: the net never
    undoes the rules' call there. With the normal the rules judge a die's tilt against the
    board itself, and the net sees only the die. 0.8 (``net_threshold``) until the
    thirty-eighth round, which found it undid that call for 19 cocked dice of the eight dice
    tuning sets and rightly for 4 flat dice, and took 0.99 (3 and 3). Since the fortieth
    round never: on the ten dice tuning sets 0.99 and never read alike (19,700 of 19,808),
    on ``out/dtune77`` and ``out/dtune78`` never read 5 dice more (3,890 of 3,916; five
    cocked dice judged 19-21 degrees off the board had been undone), and on the fresh sets
    ``out/dtune79``, ``out/dtune80``, rendered for this check after the choice, 2 more
    (3,980 of 3,998). Without the normal the net's default stays (0.99 read 7 dice fewer
    there in the thirty-eighth round)."""
    net_cocked_threshold: float | None = 0.3
    """Least probability of the net's cocked class for it to call a die cocked even where
    another class is likelier; None: only where cocked is the net's best class and at least
    ``net_threshold`` sure. Only with the board's normal (or ``net_cocked_uncalibrated``).
    Since the thirty-fifth round (None before): read with the board's normal, seven cocked
    dice the rules judged leaning 10-17 degrees (short of ``cocked_angle_board``) were read
    as values where the net gave cocked 0.35-0.79 (dice tuning sets ``out/dtune30``,
    ``out/dtune40``, ``out/tune_big``: 5,902 -> 5,909 of 5,932 dice, none lost; the one
    flat die judged leaning 10 degrees or more with cocked 0.3 or more was already called
    cocked, the net 0.93 sure)."""
    net_cocked_tilt: float | None = 10.0
    """A number: ``net_cocked_threshold`` calls a die cocked only where the net's best class
    is a value or cocked (not "no die", nor "out of view") and the rules judge the die
    leaning at least this many degrees (``Die.tilt``; a die without a judged tilt counts as
    0). None: wherever the net is that sure of cocked. 10 since the thirty-fifth round (with
    ``net_cocked_threshold`` 0.3; 8 and 12 read a die fewer, 0 twelve fewer)."""
    net_cocked_uncalibrated: bool = False
    """Without a board normal, may the net call a die cocked (its crop cannot show the
    board's tilt)?"""
    net_keeps_beside: bool = False
    """The net's "not a die" is not taken for a die the rules read as a value while another
    die found lies beside it (as for ``net_cocked_apart``). Since the twenty-first round, for
    the recogniser's fine reader (dice of ``FINE_DIE_PX`` camera pixels or more): of two dice
    side by side, both read by the rules, the net dropped a five as no die (0.62-0.74 sure),
    and the stack net then took the pair for one die resting on the other (tuning seeds 5107
    and 5109: 708 -> 710 and 788 -> 790 of 716 and 800 dice; the other fifteen 1640x1232 and
    1024x768 tuning boards alike). For the coarse reader it let a stray through (5084, a
    cocked die fewer judged bad) and gained nothing on the touching sets 5108 and 5110."""
    net_weights: str | tuple[str, ...] | None = None
    """The net's weights file, or several (their probabilities averaged); None for the
    committed ``dicenet.npz``."""
    net_cocked_apart: float = 1.6
    """The net does not call a die cocked (the rules still judge its tilt) while another die
    found lies within this many die sizes of it, centre to centre: two dice lying side by
    side are one die size apart or a little more, the crop then holds the other's body, and
    the net, taught on dice lying apart, takes it for the side faces of a leaning die (with
    certainty). Only where the other die is read as a value, or cut by the view's border
    (``out_of_view``: a view centred on one of two touching dice cuts the other), and lies
    ``ONE_DIE`` or more apart: a cocked die's side face is often found as a second die, and
    the net's call is then right. On the nineteenth round's tuning boards with two dice side
    by side in about a fifth of the frames (``tablier render --touching 0.5``), dice per die
    on seed 5103 (1640x1232) 343 of 364 without, 357 with; on 5104 (1024x768) 327 and 349 of
    358; the six tuning boards with cocked dice (5069, 5084, 5085, 5074, 5077, 5080) read
    alike.
    Without the value and ``ONE_DIE`` conditions 358 and 351, but 18 dice fewer of 4,383 on
    those six (16 cocked dice let through). The other die cut by the border counts since the
    twentieth round: 5103 and 5104 re-rendered without the shadow fault (docs/vision.md)
    361 -> 362 and 355 -> 356, the six with cocked dice alike. 0 turns this off."""


@dataclass(frozen=True)
class Die:
    """One die seen on the image."""

    value: int | None
    """The top face 1..6, or None when it cannot be read (see ``reason``)."""
    center: tuple[float, float]
    """Centre (x, y) of the top face, in the input image's pixels."""
    size: float
    """Estimated edge length of the die, in the input image's pixels."""
    confidence: float
    """0..1: how sure the reader is of ``value`` (or of the bad throw)."""
    reason: str | None = None
    """Why ``value`` is None: one of :data:`REASONS`; None when the die is read."""
    tilt: float | None = None
    """Degrees between the top face and the board as judged, with the board's normal known
    (the larger of the straightened and the along-the-ray judgements; the latter is not made
    once the former finds the die cocked), or without it against the nearest normal the dames
    seen allow (``dame_normal``); None when neither is known (or the die's pips are too small
    to judge). Not part of the JSON contract."""

    def to_json(self) -> dict[str, object]:
        """Return the die as in the ``tablier dice --json`` contract.

        Returns:
            ``{"value", "center", "size", "confidence"}`` plus ``"reason"`` when unread.

        Raises:
            Nothing.
        """
        out: dict[str, object] = {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "size": round(self.size, 1),
            "confidence": round(self.confidence, 3),
        }
        if self.value is None:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class DiceReading:
    """What the dice reader saw on one image."""

    image_size: tuple[int, int]
    """(width, height) of the input image."""
    dice: tuple[Die, ...]
    """Every die found, read or not, from left to right."""
    debug: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """Intermediate results for ``--debug`` pictures (pips, faces and the dames' outlines taken,
    at input scale)."""

    def to_json(self) -> dict[str, object]:
        """Return the reading as in the ``tablier dice --json`` contract.

        Returns:
            ``{"image": [w, h], "dice": [...]}``.

        Raises:
            Nothing.
        """
        return {"image": [self.image_size[0], self.image_size[1]],
                "dice": [d.to_json() for d in self.dice]}


@dataclass(frozen=True)
class _Pip:
    x: float
    y: float
    cov: NDArray[np.float64]  # 2x2 second moments; the pip is the ellipse x^T (4 cov)^-1 x = 1
    radius: float  # geometric mean radius
    ratio: float  # minor / major axis
    dark: float  # mean grey inside
    body: float  # grey of the die body around it
    grey: NDArray[np.uint8] = field(repr=False, compare=False)  # the picture it was found in

    @functools.cached_property
    def fine(self) -> NDArray[np.float64]:
        """Second moments from the grey levels (sharper than ``cov``), worked out when asked."""
        fine = _fine_cov(self.grey, self.x, self.y, self.cov, self.dark, self.body)
        return self.cov if fine is None else fine


@dataclass(frozen=True)
class _Face:
    pips: tuple[int, ...]
    value: int
    center: tuple[float, float]
    radius: float
    ratio: float
    misfit: float
    minor: tuple[float, float]  # unit vector along the pips' minor axis (the foreshortening)
    cov: NDArray[np.float64]  # mean second moments of its pips (the face's foreshortening)
    body: float = 0.0  # mean grey of the die body around its pips (how brightly it is lit)


# Phase 1: pips -----------------------------------------------------------------------------

def _to_grey(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if image.ndim == 2:
        return image
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), dtype=np.uint8)


def _find_pips(cfg: DiceConfig, grey: NDArray[np.uint8]) -> list[_Pip]:
    """Dark, elliptic, high-contrast blobs on a bright surround."""
    mask = np.asarray(cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                            cv2.THRESH_BINARY_INV, cfg.block, cfg.offset),
                      dtype=np.uint8)
    pips: list[_Pip] = []
    for x, y, blob in _blobs(mask):
        pip = _blob_to_pip(cfg, grey, blob, x, y)
        if pip is not None:
            if pip.ratio < cfg.split_long:
                parts = _split_blob(cfg, grey, blob, x, y)
                if len(parts) == 2 and min(q.ratio for q in parts) >= cfg.split_long_ratio:
                    pips.extend(parts)
                    continue
            pips.append(pip)
        elif 2 * cfg.pip_area[0] <= cv2.countNonZero(blob) <= cfg.split_area * cfg.pip_area[1]:
            # NOTE: blur (a die still rolling, focus) joins neighbouring pips through their
            # half-dark gap; a blob that is no pip is cut again at half its own depth.
            parts = _split_blob(cfg, grey, blob, x, y)
            if len(parts) < 2 and cfg.split_row > 0:
                row = _split_row(cfg, grey, blob, x, y)
                if len(row) >= 2:
                    parts = row
            pips.extend(parts)
    return pips


def _split_row(cfg: DiceConfig, grey: NDArray[np.uint8], blob: NDArray[np.uint8], x: int,
               y: int) -> list[_Pip]:
    """The pips of a long blob whose grey along its length dips two or three times: pips of
    one column smeared together by motion (``split_row``), or [] when it is no such row.

    The blob's pixels are binned along its long axis; it is cut across at each ridge of the
    grey profile that stands ``split_row`` above the darkest point on either side (within
    the part it cuts). The parts must be pips, round enough and of like lengths; they are
    given their mean shape, as one blur smeared them alike.
    """
    m = cv2.moments(blob, binaryImage=True)
    area = m["m00"]
    if area <= 0:
        return []
    lo, hi, v0, v1 = _eig2(m["mu20"] / area, m["mu11"] / area, m["mu02"] / area)
    ratio = math.sqrt(max(lo, 0.0) / max(hi, 1e-9))
    if not cfg.split_row_round / 4 <= ratio < cfg.split_row_ratio:
        return []
    ys, xs = np.nonzero(blob)
    t = (xs - m["m10"] / area) * v0 + (ys - m["m01"] / area) * v1
    bins = np.round(t - t.min()).astype(np.intp)
    vals = grey[y + ys, x + xs].astype(np.float64)
    count = np.bincount(bins)
    if len(count) < 5:
        return []
    seen = count > 0
    prof = np.bincount(bins, weights=vals)[seen] / count[seen]
    prof = np.interp(np.arange(len(count)), np.flatnonzero(seen), prof)
    ends = np.concatenate([prof[:1], prof, prof[-1:]])
    prof = 0.25 * ends[:-2] + 0.5 * ends[1:-1] + 0.25 * ends[2:]
    # ridges, highest first, that stand clear of the darkest point on either side within
    # the part of the row they would cut
    inner = prof[1:-1]
    peaks = np.flatnonzero((inner >= prof[:-2]) & (inner > prof[2:])
                           & (inner >= prof.min() + cfg.split_row)) + 1
    cuts: list[int] = []
    for r in sorted(peaks.tolist(), key=lambda i: -prof[i]):
        a = max([c for c in cuts if c < r], default=-1) + 1
        b = min([c for c in cuts if c > r], default=len(prof))
        if (r > a and r + 1 < b and prof[r] - prof[a:r].min() >= cfg.split_row
                and prof[r] - prof[r + 1:b].min() >= cfg.split_row):
            cuts.append(r)
            if len(cuts) > 2:
                return []
    cuts.sort()
    if not cuts:
        return []
    edges = [-1, *cuts, len(prof)]
    lengths = np.diff(edges) - 1
    if lengths.max() > cfg.split_row_even * lengths.min():
        return []
    out = []
    for a, b in itertools.pairwise(edges):
        part = np.zeros_like(blob)
        keep = (bins > a) & (bins < b)
        part[ys[keep], xs[keep]] = 255
        pip = _blob_to_pip(cfg, grey, part, x, y)
        if pip is None or pip.ratio < cfg.split_row_round:
            return []
        out.append(pip)
    cov = np.mean([p.cov for p in out], axis=0)
    small, large = _eigh2(cov)[0]
    shared = math.sqrt(max(small, 1e-9) / max(large, 1e-9))
    radius = 2 * math.sqrt(math.sqrt(max(small * large, 1e-12)))  # as _blob_to_pip's
    return [dataclasses.replace(p, cov=cov, ratio=shared, radius=radius) for p in out]


def _blobs(mask: NDArray[np.uint8], min_area: int = 4
           ) -> list[tuple[int, int, NDArray[np.uint8]]]:
    """Every 8-connected blob of ``mask`` as (x, y, its own mask over its bounding box).

    Blobs nested in another blob's hole (a pip inside a dark rim) are blobs of their own;
    a blob's holes are left empty.
    """
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    links = hierarchy[0]
    holes: dict[int, list[int]] = {}
    for i, link in enumerate(links):
        if link[3] >= 0:
            holes.setdefault(int(link[3]), []).append(i)
    out = []
    for i, contour in enumerate(contours):
        if links[i][3] >= 0:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        if bw * bh < min_area or min(bw, bh) < 2:
            continue
        blob = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(blob, [contour], 0, 255, -1, offset=(-x, -y))
        for j in holes.get(i, []):
            cv2.drawContours(blob, [contours[j]], 0, 0, -1, offset=(-x, -y))
        blob &= mask[y:y + bh, x:x + bw]
        out.append((x, y, blob))
    return out


def _split_blob(cfg: DiceConfig, grey: NDArray[np.uint8], blob: NDArray[np.uint8], x: int,
                y: int) -> list[_Pip]:
    bh, bw = blob.shape
    patch = grey[y:y + bh, x:x + bw]
    inside = patch[blob > 0]
    x0, y0 = max(x - 2, 0), max(y - 2, 0)
    around = grey[y0:y + bh + 2, x0:x + bw + 2]
    lo = np.sort(inside)[len(inside) // 10]
    hi = np.sort(around, axis=None)[(around.size * 9) // 10]
    level = (float(lo) + float(hi)) / 2
    core = np.where((blob > 0) & (patch < level), 255, 0).astype(np.uint8)
    out = []
    for cx, cy, part in _blobs(core):
        pip = _blob_to_pip(cfg, grey, part, x + cx, y + cy)
        if pip is not None:
            out.append(pip)
    return out


def _eig2(a: float, b: float, d: float) -> tuple[float, float, float, float]:
    """Eigenvalues (ascending) of the symmetric 2x2 matrix ``[[a, b], [b, d]]`` and the unit
    eigenvector (x, y) of the larger, in plain floats."""
    half = (a - d) / 2
    disc = math.sqrt(half * half + b * b)
    mean = (a + d) / 2
    lo, hi = mean - disc, mean + disc
    if abs(b) > 1e-12:
        v0, v1 = b, hi - a
        norm = math.sqrt(v0 * v0 + v1 * v1)
        return lo, hi, v0 / norm, v1 / norm
    if a >= d:
        return lo, hi, 1.0, 0.0
    return lo, hi, 0.0, 1.0


def _eigh2(cov: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric 2x2 matrix.

    Same answer as ``numpy.linalg.eigh``, without its per-call cost (it runs per pip pair).
    """
    lo, hi, v0, v1 = _eig2(float(cov[0, 0]), float(cov[0, 1]), float(cov[1, 1]))
    vecs = np.array([[-v1, v0], [v0, v1]]).T
    return np.array([lo, hi]), vecs


def _unit_ring(n: int) -> NDArray[np.float64]:
    """``n`` points evenly spaced on the unit circle, as rows (x, y)."""
    turn = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.stack([np.cos(turn), np.sin(turn)], axis=1)


_RING = _unit_ring(12)
_REGION_RING = _unit_ring(24)


def _blob_to_pip(cfg: DiceConfig, grey: NDArray[np.uint8], blob: NDArray[np.uint8], x: int,
                 y: int) -> _Pip | None:
    """The pip a blob (uint8 mask at image offset x, y) is, or None when it is no pip."""
    m = cv2.moments(blob, binaryImage=True)
    area = m["m00"]
    if not cfg.pip_area[0] <= area <= cfg.pip_area[1]:
        return None
    cxx = m["mu20"] / area + 1.0 / 12
    cyy = m["mu02"] / area + 1.0 / 12
    cxy = m["mu11"] / area
    tr, det = cxx + cyy, cxx * cyy - cxy * cxy
    disc = math.sqrt(max(tr * tr / 4 - det, 0.0))
    lmax, lmin = tr / 2 + disc, max(tr / 2 - disc, 1e-6)
    major, minor = 2 * math.sqrt(lmax), 2 * math.sqrt(lmin)
    fill = area / (math.pi * major * minor)
    ratio = minor / major
    if not (cfg.pip_fill <= fill <= 1.25 and ratio >= cfg.pip_ratio):
        return None
    mx, my = x + m["m10"] / area, y + m["m01"] / area
    bh, bw = blob.shape
    dark = float(cv2.mean(grey[y:y + bh, x:x + bw], mask=blob)[0])
    cov = np.array([[cxx, cxy], [cxy, cyy]])
    # Die body: sample a ring 1.7 pip radii out, along the pip's own ellipse.
    vals, vecs = _eigh2(cov)
    axes = vecs * (2 * np.sqrt(np.maximum(vals, 1e-6)))[None, :]
    pts = (_RING * 1.7) @ axes.T + np.array([mx, my])
    h, w = grey.shape
    px = np.clip(np.round(pts[:, 0]).astype(np.intp), 0, w - 1)
    py = np.clip(np.round(pts[:, 1]).astype(np.intp), 0, h - 1)
    body = float(np.sort(grey[py, px])[7])  # the 60th percentile of 12 samples
    if body - dark < cfg.pip_contrast or body < cfg.body_min:
        return None
    return _Pip(float(mx), float(my), cov, math.sqrt(major * minor), ratio, dark, body, grey)


_FINE_REACH = 1.3


def _fine_cov(grey: NDArray[np.uint8], mx: float, my: float, cov: NDArray[np.float64],
              dark: float, body: float) -> NDArray[np.float64] | None:
    """A pip's second moments from the grey levels around it, each pixel weighted by its darkness.

    The threshold mask rounds a small pip's outline to whole pixels; its grey levels say how
    much of each edge pixel the pip covers. None when the patch is cut by the image border.
    """
    # NOTE: only pixels within a margin of the mask's own ellipse count: the next pip, the
    # die's edge or its shadow lie close by.
    inv = np.linalg.inv(4 * cov)
    reach = 2 * math.sqrt(float(max(cov[0, 0], cov[1, 1]))) * _FINE_REACH + 1.0
    h, w = grey.shape
    x0, x1 = math.floor(mx - reach), math.ceil(mx + reach) + 1
    y0, y1 = math.floor(my - reach), math.ceil(my + reach) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None
    patch = grey[y0:y1, x0:x1].astype(np.float64)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dx, dy = xs - mx, ys - my
    weight = np.clip((body - patch) / max(body - dark, 1.0), 0.0, 1.0)
    inside = inv[0, 0] * dx * dx + 2 * inv[0, 1] * dx * dy + inv[1, 1] * dy * dy
    weight[inside > _FINE_REACH ** 2] = 0.0
    total = float(weight.sum())
    if total < 1.0:
        return None
    cx, cy = float((weight * dx).sum()) / total, float((weight * dy).sum()) / total
    dx, dy = dx - cx, dy - cy
    cxx = float((weight * dx * dx).sum()) / total + 1.0 / 12
    cyy = float((weight * dy * dy).sum()) / total + 1.0 / 12
    cxy = float((weight * dx * dy).sum()) / total
    return np.array([[cxx, cxy], [cxy, cyy]])


# Phase 2: faces ----------------------------------------------------------------------------

def _whitener(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """Map taking the pip ellipse to a circle of radius 1 (up to rotation)."""
    vals, vecs = _eigh2(cov)
    out: NDArray[np.float64] = (vecs / (2 * np.sqrt(np.maximum(vals, 1e-9)))[None, :]).T
    return out


def _shape_distance(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Affine-invariant difference of two ellipse shapes, scale ignored."""
    wa = _whitener(a)
    m = wa @ b @ wa.T
    ev = _eigh2(m)[0]
    ev = ev / math.sqrt(max(ev[0] * ev[1], 1e-12))
    return float(abs(math.log(max(ev[1], 1e-9))))


def _pattern_misfit(pts: NDArray[np.float64], cfg: DiceConfig) -> tuple[int, float]:
    """Check that whitened pip positions (units of pip radius) form a die pattern.

    Returns:
        (value, misfit in pip radii); value 0 when the layout is no die face.
    """
    return _misfit(pts[:, 0].tolist(), pts[:, 1].tolist(), cfg)


def _misfit(xs: list[float], ys: list[float], cfg: DiceConfig) -> tuple[int, float]:
    """:func:`_pattern_misfit` of the points (xs[i], ys[i]). Up to five points in plain
    floats: numpy's calls on arrays this small cost more than the sums (groups of dame rims
    try thousands of pip sets)."""
    k = len(xs)
    if k == 1:
        return 1, 0.0
    if k == 6:
        # Two columns of three. NOTE: a six's spread is nearly the same along and across its
        # columns, so every pip-pair direction is tried as the column axis.
        pts = np.array([xs, ys]).T
        fit = _six_misfit(pts - pts.mean(axis=0), cfg)
        return (6, fit) if fit < math.inf else (0, math.inf)
    if k > 6:
        return 0, math.inf
    lo, hi = cfg.spacing
    cx, cy = _mean(xs), _mean(ys)
    qx, qy = [x - cx for x in xs], [y - cy for y in ys]
    if k == 2:
        half = math.sqrt(qx[0] * qx[0] + qy[0] * qy[0])  # centre to pip = corner offset * sqrt 2
        h = half / math.sqrt(2)
        return (2, 0.0) if lo <= h <= hi else (0, math.inf)
    d = [math.sqrt(x * x + y * y) for x, y in zip(qx, qy, strict=True)]
    if k == 3:
        mid = d.index(min(d))
        a, b = (i for i in range(3) if i != mid)
        bend = math.sqrt((qx[a] + qx[b]) ** 2 + (qy[a] + qy[b]) ** 2) / 2 + d[mid]
        h = math.sqrt((qx[a] - qx[b]) ** 2 + (qy[a] - qy[b]) ** 2) / 2 / math.sqrt(2)
        gap = abs(d[a] - d[b])
        if not lo <= h <= hi:
            return 0, math.inf
        return 3, bend + gap / 2
    misfit = 0.0
    if k == 5:
        mid = d.index(min(d))
        misfit += d[mid]
        del qx[mid], qy[mid]
        cx, cy = _mean(qx), _mean(qy)
        qx, qy = [x - cx for x in qx], [y - cy for y in qy]
        d = [math.sqrt(x * x + y * y) for x, y in zip(qx, qy, strict=True)]
    # Corners of a square: same distance from the centre, 90 degrees apart.
    dm = _mean(d)
    h = dm / math.sqrt(2)
    if not lo <= h <= hi:
        return 0, math.inf
    ang = sorted(math.atan2(y, x) for x, y in zip(qx, qy, strict=True))
    steps = [ang[1] - ang[0], ang[2] - ang[1], ang[3] - ang[2], ang[0] + 2 * math.pi - ang[3]]
    misfit = max(misfit, max(abs(v - dm) for v in d),
                 max(abs(v - math.pi / 2) for v in steps) * dm)
    return k, misfit


def _mean(values: Sequence[float]) -> float:
    """The mean, summed in order (as numpy sums a few values)."""
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


_PAIRS = np.array([(i, j) for i in range(6) for j in range(i + 1, 6)])
"""The 15 pairs of six pips."""


def _six_misfit(q: NDArray[np.float64], cfg: DiceConfig) -> float:
    """Least misfit of six centred points to two columns of three, each pip pair's direction
    tried as the columns' (all 15 at once: groups of dame rims try thousands of sixes)."""
    along = q[_PAIRS[:, 1]] - q[_PAIRS[:, 0]]
    norm = np.sqrt(along[:, 0] * along[:, 0] + along[:, 1] * along[:, 1])
    ok = norm >= 1e-6
    along = along[ok] / norm[ok, None]
    u = along @ q.T  # (directions, pips): along the columns
    v = np.stack([-along[:, 1], along[:, 0]], axis=1) @ q.T  # across them
    # NOTE: the pair giving the direction lies across it alike; made exactly alike, the
    # stable sort puts the pair's first pip before its second in the columns
    # (rounding decided it before).
    rows = np.arange(len(v))
    first, second = _PAIRS[ok, 0], _PAIRS[ok, 1]
    v[rows, second] = v[rows, first]
    order = np.argsort(v, axis=1, kind="stable")
    vl = np.take_along_axis(v, order[:, :3], axis=1)
    vr = np.take_along_axis(v, order[:, 3:], axis=1)
    ul = np.sort(np.take_along_axis(u, order[:, :3], axis=1), axis=1)
    ur = np.sort(np.take_along_axis(u, order[:, 3:], axis=1), axis=1)
    ml, mr = vl.mean(axis=1), vr.mean(axis=1)
    half_gap = (mr - ml) / 2
    misfit = np.max(np.stack([
        np.abs(vl - ml[:, None]).max(axis=1),
        np.abs(ul[:, 1] - (ul[:, 0] + ul[:, 2]) / 2),
        np.abs(vr - mr[:, None]).max(axis=1),
        np.abs(ur[:, 1] - (ur[:, 0] + ur[:, 2]) / 2),
        np.abs(ul - ur).max(axis=1)]), axis=0)
    step = (ul[:, 2] - ul[:, 0] + ur[:, 2] - ur[:, 0]) / 4
    lo, hi = cfg.spacing
    fits = (lo <= half_gap) & (half_gap <= hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        aspect = step / half_gap
    fits &= (cfg.six_aspect[0] <= aspect) & (aspect <= cfg.six_aspect[1])
    return float(misfit[fits].min()) if fits.any() else math.inf


def _lone_pip_on_body(cfg: DiceConfig, grey: NDArray[np.uint8], pip: _Pip) -> bool:
    """Whether a lone pip sits on a clean die face: bright all round, nothing dark near."""
    h, w = grey.shape
    vals, vecs = _eigh2(pip.cov)
    axes = vecs * (2 * np.sqrt(np.maximum(vals, 1e-6)))[None, :]
    angles = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    samples = []
    for radius in cfg.one_body:
        pts = (ring * radius) @ axes.T + np.array([pip.x, pip.y])
        px = np.round(pts[:, 0]).astype(np.intp)
        py = np.round(pts[:, 1]).astype(np.intp)
        inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        samples.append(grey[py[inside], px[inside]].astype(np.float64))
    vals_all = np.concatenate(samples)
    if vals_all.size < 24:
        return False
    cut = (pip.dark + pip.body) / 2
    return float(np.mean(vals_all < cut)) <= cfg.one_dark_share


def _pip_between(pips: Sequence[_Pip], i: int, j: int) -> bool:
    """Whether another pip lies midway between pips ``i`` and ``j`` (a two's middle is blank)."""
    a, b = pips[i], pips[j]
    mx, my = (a.x + b.x) / 2, (a.y + b.y) / 2
    near = 0.1 * math.hypot(b.x - a.x, b.y - a.y)
    return any(math.hypot(p.x - mx, p.y - my) < near
               for k, p in enumerate(pips) if k not in (i, j))


def _whitened(pips: Sequence[_Pip], members: Sequence[int]
              ) -> tuple[list[float], list[float]]:
    """The pips' centres mapped by :func:`_whitener` of their mean shape, in plain floats."""
    a = b = d = 0.0
    for i in members:
        c = pips[i].cov
        a += float(c[0, 0])
        b += float(c[0, 1])
        d += float(c[1, 1])
    n = len(members)
    lo, hi, v0, v1 = _eig2(a / n, b / n, d / n)
    # rows: the eigenvectors of the smaller and the larger eigenvalue, over 2 sqrt(value)
    s0, s1 = 2 * math.sqrt(max(lo, 1e-9)), 2 * math.sqrt(max(hi, 1e-9))
    w00, w01, w10, w11 = -v1 / s0, v0 / s0, v0 / s1, v1 / s1
    xs = [w00 * pips[i].x + w01 * pips[i].y for i in members]
    ys = [w10 * pips[i].x + w11 * pips[i].y for i in members]
    return xs, ys


def _fit_face(pips: Sequence[_Pip], members: Sequence[int], cfg: DiceConfig) -> _Face | None:
    value, misfit = _misfit(*_whitened(pips, members), cfg)
    if value == 0 or misfit > cfg.pattern_tolerance:
        # NOTE: blur stretches pips along the motion, not the face: try the plain layout too.
        r = _mean([pips[i].radius for i in members])
        value, misfit = _misfit([pips[i].x / r for i in members],
                                [pips[i].y / r for i in members], cfg)
    if value == 0 or misfit > cfg.pattern_tolerance:
        return None
    if value == 2 and max(pips[i].radius for i in members) > cfg.two_radius_ratio * min(
            pips[i].radius for i in members):
        return None
    if value == 2 and _pip_between(pips, members[0], members[1]):
        # NOTE: a side face's three seen at a slant, its middle pip too flat to link to its
        # ends, is no two (the tuning boards: it outranked the one on top of its die).
        return None
    return _face_of(pips, members, value, misfit, cfg)


def _face_of(pips: Sequence[_Pip], members: Sequence[int], value: int, misfit: float,
             cfg: DiceConfig) -> _Face:
    """The face of ``value`` those pips make: its centre, size, light and foreshortening."""
    xy = np.array([[pips[i].x, pips[i].y] for i in members])
    cov = np.mean([pips[i].cov for i in members], axis=0)
    radius = float(np.mean([pips[i].radius for i in members]))
    ratio = float(np.mean([pips[i].ratio for i in members]))
    cx, cy = xy.mean(axis=0)
    _, vecs = _eigh2(cov)
    minor = (float(vecs[0, 0]), float(vecs[1, 0]))
    if value in (4, 5):
        # The four corner pips make a square on the face: their spread shows the face's
        # foreshortening better than the small pips' own shapes.
        q = xy - xy.mean(axis=0)
        corners = q[np.argsort(np.hypot(q[:, 0], q[:, 1]))[-4:]]
        corners = corners - corners.mean(axis=0)
        cov = _sized_like(corners.T @ corners / 4, cov)
    if value in cfg.fine_faces:
        # The pips' grey-level shapes: a one or two has too few pips for a sharp tilt otherwise.
        cov = np.mean([pips[i].fine for i in members], axis=0)
    if value == 1:
        radius /= cfg.one_radius
    body = float(np.mean([pips[i].body for i in members]))
    return _Face(tuple(members), value, (float(cx), float(cy)), radius, ratio, misfit, minor,
                 cov, body)


def _sized_like(shape: NDArray[np.float64], like: NDArray[np.float64]
                ) -> NDArray[np.float64]:
    """Second moments of ``shape``'s form at ``like``'s size (equal determinants): a face's
    foreshortening read from something larger than its pips, kept at the pips' scale."""
    return shape * (float(np.sqrt(np.linalg.det(like))) / max(
        float(np.sqrt(np.linalg.det(shape))), 1e-9))


def _lit_alike(cfg: DiceConfig, a: _Pip, b: _Pip) -> bool:
    """Whether two pips may be of one face by their light: on evenly lit body, of one ink."""
    if abs(a.body - b.body) > cfg.body_tolerance * max(a.body, b.body):
        return False
    return _deep_alike(a, b, cfg.depth_ratio)


def _deep_alike(a: _Pip, b: _Pip, ratio: float) -> bool:
    """Whether the shallower pip's depth (against the body round it, as a share of the body)
    is at least ``ratio`` of the deeper's."""
    da, db = (a.body - a.dark) / a.body, (b.body - b.dark) / b.body
    return min(da, db) >= ratio * max(da, db)


def _find_faces(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip]) -> list[_Face]:
    faces = _pip_faces(cfg, grey, pips)
    if not cfg.region_faces or (cfg.board_normal is None and not cfg.region_uncalibrated):
        return faces
    out = []
    for face in faces:
        cov = _region_cov(cfg, grey, face) if face.value in cfg.region_faces else None
        if cov is not None:
            face = dataclasses.replace(face, cov=_sized_like(cov, face.cov))  # the pips' size
        out.append(face)
    return out


def _region_cov(cfg: DiceConfig, grey: NDArray[np.uint8], face: _Face
                ) -> NDArray[np.float64] | None:
    """Second moments of the bright top face around a face's pip (None when it cannot be told
    from what lies around it).

    A square, like a circle, has equal second moments every way, and a view draws both alike
    to first order: the face's bright square shows its foreshortening as a pip does, but from
    a region some fifty times larger, so more sharply than one pip's few pixels.
    """
    size = cfg.size_per_radius * face.radius
    half = int(size) + 2
    cx, cy = face.center
    x0, y0 = int(cx) - half, int(cy) - half
    x1, y1 = x0 + 2 * half + 1, y0 + 2 * half + 1
    if x0 < 0 or y0 < 0 or x1 > grey.shape[1] or y1 > grey.shape[0]:
        return None
    crop = grey[y0:y1, x0:x1]
    mask = np.asarray(crop >= face.body * (1.0 - cfg.region_step), dtype=np.uint8)
    _, labels = cv2.connectedComponents(mask, connectivity=4)
    pip = face.radius * (cfg.one_radius if face.value == 1 else 1.0)
    ring = _REGION_RING * (cfg.region_ring * pip)
    xs = np.clip((cx - x0 + ring[:, 0]).astype(np.intp), 0, crop.shape[1] - 1)
    ys = np.clip((cy - y0 + ring[:, 1]).astype(np.intp), 0, crop.shape[0] - 1)
    seen = labels[ys, xs]
    seen = seen[seen > 0]
    if len(seen) < len(ring) // 2:
        return None
    region = np.asarray(labels == int(np.bincount(seen).argmax()), dtype=np.uint8)
    if region[0].any() or region[-1].any() or region[:, 0].any() or region[:, -1].any():
        return None  # it runs on into the surface or a side face lit alike
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    area = float(cv2.contourArea(outline))
    hull = float(cv2.contourArea(cv2.convexHull(outline)))
    if not (cfg.region_area[0] * size * size <= area <= cfg.region_area[1] * size * size
            and area >= cfg.region_solidity * hull):
        return None
    m = cv2.moments(outline)
    if math.hypot(m["m10"] / m["m00"] + x0 - cx, m["m01"] / m["m00"] + y0 - cy) > (
            cfg.region_offset * size):
        return None
    return np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]


def _pip_faces(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip]) -> list[_Face]:
    n = len(pips)
    edges = []
    if n < 2:
        return _lone_faces(cfg, grey, pips, list(range(n)))
    xy = np.array([[p.x, p.y] for p in pips])
    radius = np.array([p.radius for p in pips])
    major = radius / np.sqrt(np.array([p.ratio for p in pips]))
    dist = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    reach = cfg.link * np.maximum(major[:, None], major[None, :])
    size_ok = np.maximum(radius[:, None], radius[None, :]) <= 1.6 * np.minimum(
        radius[:, None], radius[None, :])
    for i, j in zip(*np.nonzero(np.triu((dist <= reach) & size_ok, 1)), strict=True):
        a, b = pips[int(i)], pips[int(j)]
        d = xy[j] - xy[i]
        # NOTE: tiny pips have rough shapes: the plain distance and a looser shape test too.
        small = min(a.radius, b.radius)
        whitened = float(np.linalg.norm(_whitener((a.cov + b.cov) / 2) @ d))
        plain = float(dist[i, j]) / ((a.radius + b.radius) / 2)
        if min(whitened, plain) > cfg.link:
            continue
        if _shape_distance(a.cov, b.cov) > cfg.shape_tolerance + cfg.shape_noise / small:
            continue
        if not _lit_alike(cfg, a, b):
            continue
        edges.append((int(i), int(j)))
    faces: list[_Face] = []
    for group in components(n, edges):
        faces.extend(_faces_in_group(cfg, pips, group, edges, grey))
    faces = _pair_twos(cfg, grey, pips, _keep_ones_on_body(cfg, grey, pips, faces))
    return _complete_faces(cfg, grey, pips, faces) if cfg.complete_depth < math.inf else faces


def _missing_places(face: _Face, pips: Sequence[_Pip], six_row: bool,
                    stretches: Sequence[float]) -> list[tuple[int, NDArray[np.float64]]]:
    """Where the pips a face lacks of each larger face holding it would lie, as (value,
    places) options: the face's pattern is drawn square in its pips' whitened frame. A two's
    or three's other side (a four's, or with ``six_row`` a six's) is placed at each of
    ``stretches`` times twice its pip spacing, on either side."""
    w = _whitener(face.cov)
    q = np.array([w @ np.array([pips[i].x, pips[i].y]) for i in face.pips])
    c = q.mean(axis=0)
    out: list[tuple[int, NDArray[np.float64]]] = []
    if face.value in (2, 3):
        # the two corners off the diagonal
        far = q[np.argsort(np.hypot(*(q - c).T))[-2:]]
        half = (far[1] - far[0]) / 2
        turned = np.array([-half[1], half[0]])
        out.append((face.value + 2, np.array([c + turned, c - turned])))
        # ... or a side of a four (a row of a six) that lost the other side's pips
        for sign in (1.0, -1.0) if face.value == 2 or six_row else ():
            row = [far[0], far[1]] if face.value == 2 else [far[0], c, far[1]]
            for stretch in stretches:
                out.append((2 * face.value,
                            np.array([p + 2 * stretch * sign * turned for p in row])))
    elif face.value == 4:
        ang = np.argsort(np.arctan2(*(q - c).T[::-1]))
        corners = q[ang]
        for k in (0, 1):
            out.append((6, np.array([(corners[k] + corners[k + 1]) / 2,
                                     (corners[k + 2] + corners[(k + 3) % 4]) / 2])))
    inverse = np.linalg.inv(w)
    return [(v, places @ inverse.T) for v, places in out]


_SPOT = np.array([(0.0, 0.0)] + [(0.5 * math.cos(a), 0.5 * math.sin(a))
                                  for a in np.linspace(0.0, 2 * math.pi, 8, endpoint=False)])
"""Where a missing pip's darkness is sampled, in pip radii from its place."""
_SPOT_RING = np.array([(2.0 * math.cos(a), 2.0 * math.sin(a))
                       for a in np.linspace(0.0, 2 * math.pi, 16, endpoint=False)])
"""... and the body around it."""


def _dark_spot(grey: NDArray[np.uint8], x: float, y: float, radius: float, body: float,
               body_tolerance: float) -> float:
    """How much darker a pip-sized spot is than a ring of die body around it (0 where the ring
    is not as bright as ``body``, or runs off the picture)."""
    h, w = grey.shape
    pts = np.round(np.concatenate([_SPOT, _SPOT_RING]) * radius + (x, y)).astype(np.intp)
    if pts.min() < 0 or pts[:, 0].max() >= w or pts[:, 1].max() >= h:
        return 0.0
    vals = grey[pts[:, 1], pts[:, 0]].astype(np.float64)
    ring = float(np.median(vals[len(_SPOT):]))
    if ring < (1.0 - body_tolerance) * body:
        return 0.0
    return ring - float(np.sort(vals[:len(_SPOT)])[:3].mean())


def _merge_rows(cfg: DiceConfig, pips: Sequence[_Pip], faces: list[_Face]) -> list[_Face]:
    """Two threes lying where each is the other's lost row (``complete_row_stretch``), lit
    alike, read as one six (``complete_merge_rows``)."""
    out: list[_Face | None] = list(faces)
    for k, face in enumerate(out):
        if face is None or face.value != 3:
            continue
        pair = next(((j, other) for j, other in enumerate(out) if j != k and other is not None
                     and other.value == 3 and _other_row(cfg, pips, face, other)), None)
        if pair is not None:
            j, other = pair
            out[k] = _face_of(pips, face.pips + other.pips, 6, face.misfit, cfg)
            out[j] = None
    return [f for f in out if f is not None]


def _other_row(cfg: DiceConfig, pips: Sequence[_Pip], three: _Face, other: _Face) -> bool:
    """Whether ``other`` (a three lit like ``three``) lies where ``three``'s lost row would,
    a six's: each of its pips within ``three``'s pip radius of a place."""
    if not all(_lit_alike(cfg, pips[a], pips[b]) for a in three.pips for b in other.pips):
        return False
    return any(value == 6 and all(
        min(math.hypot(pips[i].x - x, pips[i].y - y) for i in other.pips) <= three.radius
        for x, y in places)
        for value, places in _missing_places(three, pips, True, cfg.complete_row_stretch))


def _complete_faces(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip],
                    faces: list[_Face]) -> list[_Face]:
    """Faces whose missing pips show where the pattern puts them, read as the larger face
    (``complete_depth``)."""
    if cfg.complete_merge_rows and cfg.complete_six_row:
        faces = _merge_rows(cfg, pips, faces)
    used = {i for f in faces if f.value != 1 for i in f.pips}
    out: list[_Face] = []
    taken: set[int] = set()
    for face in faces:
        if face.value not in (2, 3, 4):
            out.append(face)
            continue
        depth = float(np.mean([pips[i].body - pips[i].dark for i in face.pips]))
        body = float(np.mean([pips[i].body for i in face.pips]))
        held = used | taken
        free = [k for k, p in enumerate(pips) if k not in held
                and all(_lit_alike(cfg, p, pips[i]) for i in face.pips)]
        best: tuple[float, int, list[int], NDArray[np.float64]] | None = None
        for value, places in _missing_places(face, pips, cfg.complete_six_row,
                                             cfg.complete_row_stretch):
            found: list[int] = []
            least = math.inf
            for x, y in places:
                nearest = min(free, key=lambda k: math.hypot(pips[k].x - x, pips[k].y - y),
                              default=None)
                if (nearest is not None and math.hypot(pips[nearest].x - x, pips[nearest].y - y)
                        <= face.radius):
                    found.append(nearest)
                    least = min(least, 1.0)
                    continue
                if any(math.hypot(pips[k].x - x, pips[k].y - y) <= face.radius for k in held):
                    # a pip of another face: no pip this face lost
                    least = 0.0
                    break
                least = min(least, _dark_spot(grey, float(x), float(y), face.radius, body,
                                              cfg.body_tolerance) / depth)
                if least < cfg.complete_depth:
                    break
            if least >= cfg.complete_depth and (best is None or least > best[0]):
                best = (least, value, found, places)
        if best is None:
            out.append(face)
            continue
        _, value, found, places = best
        taken.update(found)
        # the middle of the larger face (a four's, where the two was its side)
        xy = np.concatenate([[(pips[i].x, pips[i].y) for i in face.pips], places])
        cx, cy = xy.mean(axis=0)
        out.append(dataclasses.replace(face, value=value, pips=face.pips + tuple(found),
                                       center=(float(cx), float(cy))))
    return [f for f in out if f.value != 1 or not taken.intersection(f.pips)]


def _clear_between(cfg: DiceConfig, grey: NDArray[np.uint8], a: _Pip, b: _Pip) -> bool:
    """Whether the line between two pips runs over clean die body (nothing dark, no edge)."""
    d = math.hypot(b.x - a.x, b.y - a.y)
    r = max(a.radius, b.radius)
    if d < 4 * r:
        return False
    body = (a.body + b.body) / 2
    dark = (a.dark + b.dark) / 2
    ts = np.linspace(2.0 * r / d, 1.0 - 2.0 * r / d, 15)
    xs = np.round(a.x + ts * (b.x - a.x)).astype(np.intp)
    ys = np.round(a.y + ts * (b.y - a.y)).astype(np.intp)
    h, w = grey.shape
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= w or ys.max() >= h:
        return False
    vals = grey[ys, xs].astype(np.float64)
    return bool(vals.min() > (dark + body) / 2
                and np.abs(vals - body).max() <= cfg.clear_tolerance * body)


def _pair_twos(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip],
               faces: list[_Face]) -> list[_Face]:
    """Two lone pips (each left over, or read as a one) that make a two together.

    A two's pips lie farther apart than the linking reach of other faces' neighbours, so a
    two beside a side face may lose a pip to it or fall apart into a one and a stray.
    """
    used = {i for f in faces if f.value != 1 for i in f.pips}
    free = [i for i in range(len(pips)) if i not in used]
    lo, hi = cfg.spacing
    best: list[tuple[float, int, int, _Face]] = []
    for k, i in enumerate(free):
        for j in free[k + 1:]:
            a, b = pips[i], pips[j]
            if max(a.radius, b.radius) > 1.3 * min(a.radius, b.radius):
                continue
            dist = math.hypot(b.x - a.x, b.y - a.y) / ((a.radius + b.radius) / 2)
            if not 2 * math.sqrt(2) * lo <= dist <= 2 * math.sqrt(2) * hi:
                continue
            if _shape_distance(a.cov, b.cov) > cfg.pair_shape_tolerance:
                continue
            if not _lit_alike(cfg, a, b) or not _deep_alike(a, b, cfg.pair_depth_ratio):
                continue
            if not _clear_between(cfg, grey, a, b):
                continue
            face = _fit_face(pips, [i, j], cfg)
            if face is not None and face.value == 2:
                best.append((dist, i, j, face))
    taken: set[int] = set()
    twos = []
    for _, i, j, face in sorted(best, key=lambda t: t[0]):
        if i in taken or j in taken:
            continue
        taken.update((i, j))
        twos.append(face)
    if not twos:
        return faces
    return [f for f in faces if not taken.intersection(f.pips)] + twos


def _lone_faces(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip],
                members: list[int]) -> list[_Face]:
    faces = [f for f in (_fit_face(pips, [i], cfg) for i in members) if f is not None]
    return _keep_ones_on_body(cfg, grey, pips, faces)


def _keep_ones_on_body(cfg: DiceConfig, grey: NDArray[np.uint8], pips: Sequence[_Pip],
                       faces: list[_Face]) -> list[_Face]:
    """A lone pip is a one only on a clean face; elsewhere it is a speck, a hole, print."""
    return [f for f in faces if f.value != 1 or _lone_pip_on_body(cfg, grey, pips[f.pips[0]])]


def _partition(cfg: DiceConfig, pips: Sequence[_Pip], group: list[int]) -> list[_Face]:
    """Split a group of pips into die faces: every die pattern its pips can form, taken
    largest and best fitting first, each pip used once.

    Returns:
        The faces, or [] when some pips could not be placed in a face (but for
        ``partition_strays`` pips, on its terms).
    """
    reach = 2 * math.sqrt(2) * cfg.spacing[1]
    near: dict[int, set[int]] = {i: set() for i in group}
    for k, i in enumerate(group):
        for j in group[k + 1:]:
            a, b = pips[i], pips[j]
            if math.hypot(b.x - a.x, b.y - a.y) > reach * (a.radius + b.radius) / 2:
                continue
            if not _lit_alike(cfg, a, b):
                continue
            if _shape_distance(a.cov, b.cov) > cfg.shape_tolerance + cfg.shape_noise / min(
                    a.radius, b.radius):
                continue
            near[i].add(j)
            near[j].add(i)
    # NOTE: every pip set the group's links allow, up to six pips: a group of more sets than
    # the budget is split by its links, listed first so that no set is fitted in vain (dame
    # rims at 1024 px gave groups of thousands).
    sets: list[list[int]] = []

    def walk(members: list[int], options: list[int]) -> bool:
        """Lists ``members`` and the sets grown from it; False once past the budget."""
        sets.append(members)
        if len(sets) > cfg.partition_budget:
            return False
        if len(members) < 6:
            for k, nxt in enumerate(options):
                if not walk(members + [nxt], [o for o in options[k + 1:] if o in near[nxt]]):
                    return False
        return True

    for k, first in enumerate(group):
        if not walk([first], [o for o in group[k + 1:] if o in near[first]]):
            return []
    found = [face for members in sets if len(members) >= 2
             if (face := _fit_face(pips, members, cfg)) is not None]
    faces = _largest_first(found)
    if len({i for f in faces for i in f.pips}) == len(group):
        return faces
    if cfg.partition_strays:
        # NOTE: with pips left over, only faces that fit well: a loose fit there mixes the
        # top face of a cocked die with its side face.
        faces = _largest_first([f for f in found if f.misfit <= cfg.partition_stray_misfit])
        if cfg.partition_unlit_strays:
            faces = [f for f in faces if len(f.pips) >= 4]
        used = {i for f in faces for i in f.pips}
        left = [pips[i] for i in group if i not in used]
        strays = [p for p in left if not cfg.partition_unlit_strays
                  or any(_lit_alike(cfg, p, pips[i]) for i in used)]
        if (faces and len(strays) <= cfg.partition_strays and min(len(f.pips) for f in faces) >= 4
                and not any(_within(pips, f, p) for f in faces for p in left)):
            return faces
    return []


def _within(pips: Sequence[_Pip], face: _Face, pip: _Pip) -> bool:
    """Whether a pip lies within a face's pips' reach of its centre (the blank middle of a
    four, say: the face was misread)."""
    reach = max(math.hypot(pips[i].x - face.center[0], pips[i].y - face.center[1])
                for i in face.pips)
    return math.hypot(pip.x - face.center[0], pip.y - face.center[1]) < reach


def _largest_first(found: Sequence[_Face]) -> list[_Face]:
    """Faces taken largest and best fitting first, each pip used once."""
    faces: list[_Face] = []
    used: set[int] = set()
    for face in sorted(found, key=lambda f: (-len(f.pips), f.misfit)):
        if used.isdisjoint(face.pips):
            faces.append(face)
            used.update(face.pips)
    return faces


def _shape_spread(pips: Sequence[_Pip], members: Sequence[int]) -> float:
    """The largest shape difference between two of the pips (0 for one pip)."""
    return max((_shape_distance(pips[a].cov, pips[b].cov)
                for k, a in enumerate(members) for b in members[k + 1:]), default=0.0)


def _faces_in_group(cfg: DiceConfig, pips: Sequence[_Pip], group: list[int],
                    edges: Sequence[tuple[int, int]], grey: NDArray[np.uint8]) -> list[_Face]:
    """Faces within one linked group: the whole group, or failing that, its parts."""
    if len(group) <= 6:
        face = _fit_face(pips, group, cfg)
        if face is not None:
            return [face]
    if len(group) == 1:
        return []
    if 7 <= len(group) <= cfg.partition_max:
        # NOTE: pips of a top face and a side face turned alike (a small die seen from
        # high up) link into one group; splitting it by its links mixes the two faces.
        faces = _partition(cfg, pips, group)
        if faces:
            used = {i for f in faces for i in f.pips}
            return faces + _lone_faces(cfg, grey, pips, [i for i in group if i not in used])
    if 3 <= len(group) <= 7:
        # One stray pip (from a side face, a speck) joined to a face: leave it out. Of faces
        # that fit alike (any two pips fit a two), the one whose pips are most alike wins.
        best: tuple[tuple[float, float], _Face, int] | None = None
        for stray in group:
            kept = [i for i in group if i != stray]
            face = _fit_face(pips, kept, cfg)
            if face is None:
                continue
            # NOTE: a stray that is itself a one (a die lying against the two) is left out
            # before a pip of the two (stray_one).
            spread = _shape_spread(pips, kept)
            if cfg.stray_one > 0 and not _lone_faces(cfg, grey, pips, [stray]):
                spread += cfg.stray_one
            if (cfg.stray_two_clear > 0 and face.value == 2
                    and not _clear_between(cfg, grey, pips[kept[0]], pips[kept[1]])):
                spread += cfg.stray_two_clear
            key = (round(face.misfit, 6), spread)
            if best is None or key < best[0]:
                best = (key, face, stray)
        if best is not None:
            return [best[1]] + _faces_in_group(cfg, pips, [best[2]], [], grey)
    # Split by pip shape (roundness) first, then by dropping the weakest link.
    order = sorted(group, key=lambda i: pips[i].ratio)
    ratios = [pips[i].ratio for i in order]
    gaps = np.diff(ratios)
    cut = int(np.argmax(gaps)) + 1
    if gaps[cut - 1] > 0.12:
        parts = [order[:cut], order[cut:]]
    else:
        # Split at the longest link (whitened distance) of the group.
        inside = set(group)
        sub = [(a, b) for a, b in edges if a in inside and b in inside]
        if not sub:
            return []

        def length(e: tuple[int, int]) -> float:
            a, b = pips[e[0]], pips[e[1]]
            d = np.array([b.x - a.x, b.y - a.y])
            return float(np.linalg.norm(_whitener((a.cov + b.cov) / 2) @ d))

        worst = max(sub, key=length)
        rest = [e for e in sub if e != worst]
        idx = {g: k for k, g in enumerate(group)}
        comps = components(len(group), [(idx[a], idx[b]) for a, b in rest])
        if len(comps) == 1:
            return _faces_in_group(cfg, pips, group, rest, grey) if rest else []
        parts = [[group[k] for k in comp] for comp in comps]
    out: list[_Face] = []
    for part in parts:
        inside = set(part)
        out.extend(_faces_in_group(cfg, pips, part,
                                   [(a, b) for a, b in edges if a in inside and b in inside],
                                   grey))
    return out


# Phase 3: dice -----------------------------------------------------------------------------

def _long_axis(face: _Face) -> float:
    """A face's pips' mean long half-axis (pixels): the pips' size, foreshortening aside."""
    return face.radius / math.sqrt(max(face.ratio, 1e-6))


def _is_side_of(cfg: DiceConfig, top: _Face, face: _Face,
                image_size: tuple[int, int] | None = None, scale: float = 1.0
                ) -> tuple[bool, float]:
    """Whether ``face`` can be a side face of the die whose upper face is ``top``.

    Returns:
        (answer, distance between the face centres in pip radii).
    """
    r = max(top.radius, face.radius)
    dx, dy = face.center[0] - top.center[0], face.center[1] - top.center[1]
    d = math.hypot(dx, dy) / r
    top_long, face_long = _long_axis(top), _long_axis(face)
    if max(top_long, face_long) > cfg.side_size * min(top_long, face_long):
        return False, d
    if d < cfg.same_die_close:
        return True, d
    if cfg.view_ray is not None and cfg.side_round_ray < math.inf:
        tan = dicenet.ray_lean(cfg.view_ray)[1]  # 1/cos^2 of the lean is 1 + tan^2
        if top.ratio ** 2 + face.ratio ** 2 > cfg.side_round_ray * (1.0 + tan * tan):
            return False, d
    if d >= cfg.same_die:
        return d < cfg.side_darker_reach and _darker_side(cfg, top, face, image_size, scale), d
    # NOTE: smaller pips alone do not make a round face a side face: a one's size is rough
    # (``one_radius``), and two dice lying side by side are both round.
    lesser = (top.ratio - face.ratio > cfg.side_ratio_gap
              or (face.radius < cfg.side_radius * top.radius
                  and face.ratio < cfg.side_max_ratio))
    # A side face is foreshortened across the edge it shares with the top face, so it lies
    # along its own minor axis (or the top's) from the top face.
    flat = face if face.ratio <= top.ratio else top
    unit = (dx / (d * r), dy / (d * r))
    aligned = flat.ratio < cfg.side_max_ratio and abs(
        unit[0] * flat.minor[0] + unit[1] * flat.minor[1]) > cfg.side_alignment
    return lesser or aligned or _darker_side(cfg, top, face, image_size, scale), d


def _board_unit(cfg: DiceConfig) -> NDArray[np.float64] | None:
    """The board's normal (``board_normal``) as a unit vector, or None when not known."""
    if cfg.board_normal is None:
        return None
    board = np.asarray(cfg.board_normal, dtype=np.float64)
    out: NDArray[np.float64] = board / np.linalg.norm(board)
    return out


def _darker_side(cfg: DiceConfig, a: _Face, b: _Face, image_size: tuple[int, int] | None,
                 scale: float) -> bool:
    """Whether the darker of two nearby faces is a side face of the brighter, by its light and
    its place (``side_darker``): lit from above, a die's side faces are darker than its top,
    and those seen lie on the camera's side of it. Two dice lying flat are lit alike."""
    if cfg.side_darker <= 0 or image_size is None or (
            cfg.board_normal is None and not cfg.side_darker_uncalibrated):
        return False
    top, face = (a, b) if a.body >= b.body else (b, a)
    if face.body <= 0 or face.body > cfg.side_darker * top.body:
        return False
    board = _board_unit(cfg)
    if board is None:
        board = np.array([0.0, 0.0, 1.0])
    elif _facing(cfg, top, board, image_size, scale) < math.cos(
            math.radians(cfg.cocked_angle_board)):
        return False
    if cfg.view_ray is not None:
        tx, ty = cfg.view_ray[0], cfg.view_ray[1]
    else:
        # NOTE: the point below the camera is drawn where the board's normal vanishes; a
        # die's side faces lie toward it from its top face.
        w, h = image_size
        f = cfg.focal * max(w, h)
        tz = max(float(board[2]), 1e-6)
        tx = w / 2 + f * float(board[0]) / tz - top.center[0] / scale
        ty = h / 2 + f * float(board[1]) / tz - top.center[1] / scale
    dx, dy = face.center[0] - top.center[0], face.center[1] - top.center[1]
    norm = math.hypot(dx, dy) * math.hypot(tx, ty)
    return norm > 0 and (dx * tx + dy * ty) / norm >= cfg.side_toward


def _group_faces(cfg: DiceConfig, faces: Sequence[_Face],
                 image_size: tuple[int, int] | None = None, scale: float = 1.0
                 ) -> list[list[_Face]]:
    """Faces in order of roundness: each joins the nearest die it is a side of (with
    ``view_ray``, a flat face one it lies toward the camera from first), or starts one."""
    groups: list[list[_Face]] = []
    ray = cfg.view_ray if cfg.side_toward_camera > 0 else None
    for face in sorted(faces, key=lambda f: f.ratio, reverse=True):
        best: tuple[tuple[bool, float], list[_Face]] | None = None
        for group in groups:
            side, d = _is_side_of(cfg, group[0], face, image_size, scale)
            # NOTE: a side face of a die lying flat shows on the camera's side of its top face
            # (``side_toward_camera``).
            away = (ray is not None and face.ratio < cfg.side_toward_camera
                    and (face.center[0] - group[0].center[0]) * ray[0]
                    + (face.center[1] - group[0].center[1]) * ray[1] < 0)
            if side and (best is None or (away, d) < best[0]):
                best = ((away, d), group)
        if best is None:
            groups.append([face])
        else:
            best[1].append(face)
    return groups


def _away_direction(groups: Sequence[Sequence[_Face]]) -> tuple[float, float]:
    """The image direction pointing away from the camera, voted by dice showing side faces.

    On an oblique view the side faces of a die lie between its top face and the camera; the
    roundest face of most dice is their top, so the mean offset from side faces to the
    roundest face points away from the camera.
    """
    vx = vy = 0.0
    for group in groups:
        if len(group) < 2:
            continue
        top = max(group, key=lambda f: f.ratio)
        for f in group:
            if f is top:
                continue
            dx, dy = top.center[0] - f.center[0], top.center[1] - f.center[1]
            n = math.hypot(dx, dy) or 1.0
            weight = max(0.0, top.ratio - f.ratio) + 0.05
            vx, vy = vx + weight * dx / n, vy + weight * dy / n
    n = math.hypot(vx, vy)
    return (vx / n, vy / n) if n > 1e-9 else (0.0, 0.0)


def _away_directions(cfg: DiceConfig, groups: Sequence[Sequence[_Face]]
                     ) -> list[tuple[float, float]]:
    """For every die, the image direction pointing away from the camera.

    Seen through a lens, side faces lie toward the nadir (the image of the point under the
    camera) and the top face away from it. Each die that shows side faces votes a line
    through its roundest face along (roundest - sides); the nadir is where the lines meet.
    When they are nearly parallel (the nadir far outside the picture, as for a webcam on a
    desk) one direction serves for all.
    """
    common = _away_direction(groups)
    lines = []
    for group in groups:
        if len(group) < 2:
            continue
        top = max(group, key=lambda f: f.ratio)
        vx = vy = 0.0
        for f in group:
            if f is not top:
                dx, dy = top.center[0] - f.center[0], top.center[1] - f.center[1]
                n = math.hypot(dx, dy) or 1.0
                vx, vy = vx + dx / n, vy + dy / n
        n = math.hypot(vx, vy)
        if n > 1e-9:
            lines.append((np.array(top.center), np.array([vx / n, vy / n])))
    nadir: NDArray[np.float64] | None = None
    if len(lines) >= cfg.nadir_votes:
        a = np.zeros((2, 2))
        b = np.zeros(2)
        for point, d in lines:
            m = np.eye(2) - np.outer(d, d)
            a += m
            b += m @ point
        vals = _eigh2(a)[0]
        if vals[0] > cfg.nadir_spread * vals[1]:
            guess = np.asarray(np.linalg.solve(a, b), dtype=np.float64)
            # The nadir lies behind most dice's top faces (on their side faces' side).
            behind = sum(float((point - guess) @ d) > 0 for point, d in lines)
            if behind >= 0.75 * len(lines):
                nadir = guess
    out = []
    for group in groups:
        if nadir is None:
            out.append(common)
            continue
        cx = sum(f.center[0] for f in group) / len(group)
        cy = sum(f.center[1] for f in group) / len(group)
        dx, dy = cx - float(nadir[0]), cy - float(nadir[1])
        n = math.hypot(dx, dy)
        out.append((dx / n, dy / n) if n > 1e-9 else common)
    return out


def _top_score(cfg: DiceConfig, face: _Face, group: Sequence[_Face],
               away: tuple[float, float]) -> float:
    """How much ``face`` looks like the top of its die: round, and farthest from the camera."""
    cx = sum(f.center[0] for f in group) / len(group)
    cy = sum(f.center[1] for f in group) / len(group)
    r = max(f.radius for f in group)
    reach = ((face.center[0] - cx) * away[0] + (face.center[1] - cy) * away[1]) / r
    lit = face.body / max(f.body for f in group) if face.body > 0 else 1.0
    return face.ratio + cfg.away_weight * reach + cfg.lit_weight * lit


def _normal_candidates(cfg: DiceConfig, face: _Face, image_size: tuple[int, int],
                       scale: float) -> NDArray[np.float64]:
    """The two unit normals (camera frame, z toward the camera) a top face may have.

    A small circle on a plane with normal n, seen through a pinhole at image point p, is drawn
    as an ellipse of shape J (I - n n^T) J^T with J = [I | -p/f]; the normal is found by
    search over a grid of directions. The ellipse cannot tell a face tilted one way along its
    minor axis from one tilted the other way: both are returned.
    """
    w, h = image_size
    f = cfg.focal * max(w, h)
    px = face.center[0] / scale - w / 2
    py = face.center[1] / scale - h / 2
    jac = np.array([[1.0, 0.0, -px / f], [0.0, 1.0, -py / f]])
    normals = _normal_grid()
    # S(n) = J J^T - (J n)(J n)^T for every normal at once, whitened by the face's shape W:
    # W S W^T = C - u u^T with C = W J J^T W^T and u = W J n (2x2 sums, no batched products).
    target = face.cov / math.sqrt(max(float(np.linalg.det(face.cov)), 1e-12))
    wt = _whitener(target)
    wj = wt @ jac
    c = wj @ wj.T
    u = normals @ wj.T
    m00 = c[0, 0] - u[:, 0] * u[:, 0]
    m11 = c[1, 1] - u[:, 1] * u[:, 1]
    m01 = c[0, 1] - u[:, 0] * u[:, 1]
    tr = m00 + m11
    det = np.maximum(m00 * m11 - m01 * m01, 1e-12)
    # log of the axis ratio of m, 0 when the shapes agree up to scale
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0.0))
    err = np.log((tr / 2 + disc) / np.maximum(tr / 2 - disc, 1e-12))
    first = int(np.argmin(err))
    n1 = normals[first]
    # The mirror candidate: reflect the tilt across the view ray.
    ray = np.array([px / f, py / f, 1.0])
    ray /= np.linalg.norm(ray)
    n2 = 2 * float(n1 @ ray) * ray - n1
    flip = err.copy()
    flip[normals @ n2 < 0.99] = np.inf
    second = normals[int(np.argmin(flip))] if np.isfinite(flip).any() else n2
    return np.stack([n1, second])


_GRID: list[NDArray[np.float64]] = []


def _normal_grid() -> NDArray[np.float64]:
    """Unit normals on the half sphere facing the camera, about 3 degrees apart (cached)."""
    if not _GRID:
        pts = []
        for tilt in np.radians(np.arange(0.0, 80.0, 3.0)):
            steps = max(1, round(2 * math.pi * math.sin(tilt) / math.radians(3.0)))
            for az in np.linspace(0.0, 2 * math.pi, steps, endpoint=False):
                pts.append((math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az),
                            math.cos(tilt)))
        _GRID.append(np.array(pts))
    return _GRID[0]


def _odd_tops(cfg: DiceConfig, tops: Sequence[_Face], groups: Sequence[Sequence[_Face]],
              image_size: tuple[int, int], scale: float,
              board_cos: Sequence[float | None] | None = None,
              dames: NDArray[np.float64] | None = None
              ) -> tuple[set[int], dict[int, float]]:
    """Dice whose top face is tilted against the others' (cocked), and the judged tilts.

    Top faces of dice lying flat are parallel to the board: the same normal. Each face's
    normal is recovered from its foreshortening (two mirror candidates, of which the side
    faces seen may pick one: ``odd_side_vote``); a die whose best normal is more than
    ``cocked_angle`` from the others' is leaning (``cocked_angle_voted`` where both normals were
    picked; of three dice or more, from every other's: ``odd_of_all``). Of two dice that
    disagree, the one whose face is turned farther from the camera is taken as leaning.
    With the board's normal known, each top face's tilt against it (degrees) is returned too;
    ``board_cos`` gives those :func:`_board_cos` already worked out (None: not yet). Without
    it, ``dames`` (the board normals the dames seen allow, :func:`_dame_normals`) stand for
    the board: a die is leaning when its top face is ``cocked_angle_dame`` off all of them,
    and its tilt is how far off the nearest it is; unless that finds every die of two or more
    leaning.
    """
    board = _board_unit(cfg)
    if board is not None:
        leaning: set[int] = set()
        tilts: dict[int, float] = {}
        for i, (top, group) in enumerate(zip(tops, groups, strict=True)):
            angle = (cfg.cocked_angle_board if top.radius >= cfg.cocked_min_radius_board
                     else cfg.cocked_angle_small)
            known = board_cos[i] if board_cos is not None else None
            cos = (known if known is not None
                   else _board_cos(cfg, top, group, board, image_size, scale))
            tilts[i] = math.degrees(math.acos(min(1.0, cos)))
            if tilts[i] > angle:
                leaning.add(i)
            elif cfg.view_ray is not None and cfg.cocked_angle_ray < 90.0:
                along = math.degrees(math.acos(min(1.0, _ray_cos(
                    cfg, top, group, image_size, scale))))
                tilts[i] = max(tilts[i], along)
                if along > cfg.cocked_angle_ray:
                    leaning.add(i)
        return leaning, tilts
    if dames is not None and len(dames):
        dame_limit = math.cos(math.radians(cfg.cocked_angle_dame))
        odd_dame: set[int] = set()
        off: dict[int, float] = {}
        judged: dict[int, NDArray[np.float64]] = {}
        for i in (i for i, f in enumerate(tops) if f.radius >= cfg.cocked_min_radius_dame):
            cands = _normal_candidates(cfg, tops[i], image_size, scale)
            if cfg.odd_side_vote:
                pick = _side_voted(cfg, tops[i], groups[i], cands, image_size, scale)
                cands = cands if pick is None else cands[pick:pick + 1]
            judged[i] = cands
        if cfg.dame_dice_vote and judged:
            dames = _dice_agree(dames, list(judged.values()), dame_limit)
        for i, cands in judged.items():
            best = float(np.max(cands @ dames.T))
            off[i] = math.degrees(math.acos(min(1.0, best)))
            if best < dame_limit:
                odd_dame.add(i)
        # NOTE: where the dames find every die of two or more leaning, they are not believed
        # (an outline fitted wrongly: a dame cut by the picture's border, two dames
        # overlapping); the dice are compared with each other instead.
        if len(off) < 2 or len(odd_dame) < len(off):
            return odd_dame, off
    idx = [i for i, f in enumerate(tops) if f.radius >= cfg.cocked_min_radius]
    if len(idx) < 2:
        return set(), {}
    plain = {i: _normal_candidates(cfg, tops[i], image_size, scale) for i in idx}
    limit = math.cos(math.radians(cfg.cocked_angle))
    voted_limit = math.cos(math.radians(cfg.cocked_angle_voted))

    def judge(cands: dict[int, NDArray[np.float64]]) -> set[int]:
        def agree(a: int, b: int) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
            best = (-2.0, cands[a][0], cands[b][0])
            for na in cands[a]:
                for nb in cands[b]:
                    c = float(na @ nb)
                    if c > best[0]:
                        best = (c, na, nb)
            # NOTE: the margin by which the pair agrees; two normals both picked by their
            # side faces (one candidate each) are judged at ``cocked_angle_voted``.
            both = len(cands[a]) == 1 and len(cands[b]) == 1
            return best[0] - (voted_limit if both else limit), best[1], best[2]

        odd: set[int] = set()
        if len(idx) == 2:
            c, na, nb = agree(idx[0], idx[1])
            if c < 0:
                odd.add(idx[0] if na[2] < nb[2] else idx[1])
            return odd
        for a in idx:
            margins = [agree(a, b)[0] for b in idx if b != a]
            if (max(margins) if cfg.odd_of_all else float(np.median(margins))) < 0:
                odd.add(a)
        return odd

    if cfg.odd_side_vote:
        # NOTE: the side faces seen tell a top face's normal from its mirror, as with the
        # board's normal known (``_board_cos``). Where that finds every die of three or more
        # leaning, the votes are not believed (a webcam's very oblique view).
        voted: dict[int, NDArray[np.float64]] = {}
        for i in idx:
            pick = _side_voted(cfg, tops[i], groups[i], plain[i], image_size, scale)
            voted[i] = plain[i] if pick is None else plain[i][pick:pick + 1]
        odd = judge(voted)
        if len(idx) < 3 or len(odd) < len(idx):
            return odd, {}
    return judge(plain), {}


def _dice_agree(dames: NDArray[np.float64], dice: Sequence[NDArray[np.float64]],
                limit: float) -> NDArray[np.float64]:
    """Of the board normals the dames allow, those the most dice agree with.

    ``dice`` holds each die's candidate normals (one or two rows); a die agrees with a normal
    when one of its candidates lies within ``limit`` (a cosine) of it. Normals within 10
    degrees of each other are one choice. When no normal is apart from the others, or the
    dice agree as much with each, ``dames`` is returned as it is.
    """
    near = math.cos(math.radians(10.0))
    support = np.array([sum(bool(np.max(c @ n) >= limit) for c in dice) for n in dames])
    top = dames[support == support.max()]
    apart = [n for n in dames if float(np.max(top @ n)) < near]
    return dames if not apart else np.asarray(top, dtype=np.float64)


def _ray_cos(cfg: DiceConfig, top: _Face, group: Sequence[_Face], image_size: tuple[int, int],
             scale: float) -> float:
    """|cos| of the angle between a top face's normal and the board's, seen along the ray.

    The straightened view is the die projected onto the board along ``cfg.view_ray``; an
    orthographic view along the ray differs from it by a linear map (the board's axes as the
    camera sees them). The faces' shapes and the side faces' places are carried into that view
    and the board's normal is the ray's tilt there; :func:`_board_cos` then judges the top face.
    """
    if cfg.view_ray is None:
        return 1.0
    ray = np.asarray(cfg.view_ray, dtype=np.float64)
    ray = ray / np.linalg.norm(ray)
    if ray[2] < 0:
        ray = -ray
    e1 = np.array([1.0, 0.0, 0.0]) - ray[0] * ray
    e1 /= np.linalg.norm(e1)
    # NOTE: z is up from the board and y down the view (a left-handed frame): the view's second
    # axis, ray x e1 by numpy's formula, is +y when the ray is straight up.
    e2 = np.cross(ray, e1)
    a = np.array([[e1[0], e1[1]], [e2[0], e2[1]]])
    mid = np.array([image_size[0], image_size[1]], dtype=np.float64) * scale / 2

    def carried(face: _Face) -> _Face:
        c = a @ (np.asarray(face.center) - mid) + mid
        return dataclasses.replace(face, center=(float(c[0]), float(c[1])),
                                   cov=a @ face.cov @ a.T)

    top_r = carried(top)
    group_r = [top_r if f is top else carried(f) for f in group]
    # The reader's z runs along the optical axis, from the camera (-ray): the board's normal
    # there is (e1.up, e2.up, -ray.up), or its opposite.
    board = np.array([-float(e1[2]), -float(e2[2]), float(ray[2])])
    return _board_cos(dataclasses.replace(cfg, side_vote=cfg.ray_side_vote), top_r, group_r,
                      board, image_size, scale)


def _facing(cfg: DiceConfig, face: _Face, board: NDArray[np.float64],
            image_size: tuple[int, int], scale: float) -> float:
    """|cos| of the angle between a face's normal and the board's (1 = parallel)."""
    return max(abs(float(n @ board)) for n in _normal_candidates(cfg, face, image_size, scale))


def _board_cos(cfg: DiceConfig, top: _Face, group: Sequence[_Face], board: NDArray[np.float64],
               image_size: tuple[int, int], scale: float) -> float:
    """|cos| of the angle between a top face's normal and the board's, its side faces seen.

    The foreshortening of a face fits two normals, mirror images across the view ray; for a
    leaning die one of them may lie close to the board's. The body of a die runs from its
    top face toward the vanishing point of its normal, and so do the side faces seen: of the
    two normals, the one whose vanishing point the side faces lie toward is the top face's.
    With no side face seen (or no clear vote), the normal nearer the board's is taken.
    """
    cands = _normal_candidates(cfg, top, image_size, scale)
    cosines = [abs(float(n @ board)) for n in cands]
    voted = _side_voted(cfg, top, group, cands, image_size, scale)
    return max(cosines) if voted is None else cosines[voted]


def _side_voted(cfg: DiceConfig, top: _Face, group: Sequence[_Face], cands: NDArray[np.float64],
                image_size: tuple[int, int], scale: float) -> int | None:
    """Which of a top face's two mirror normals its side faces vote for (None: no clear vote).

    The body of a die runs from its top face toward the vanishing point of its normal, and so
    do the side faces seen.
    """
    sides = [f for f in group if f is not top]
    if not sides:
        return None
    w, h = image_size
    f = cfg.focal * max(w, h)
    tx, ty = top.center[0] / scale, top.center[1] / scale
    votes = []
    for n in cands:
        if abs(float(n[2])) < 1e-6:
            return None
        vx, vy = f * float(n[0] / n[2]) + w / 2 - tx, f * float(n[1] / n[2]) + h / 2 - ty
        norm = math.hypot(vx, vy)
        if norm < 1e-6:
            return None
        vote = 0.0
        for side in sides:
            ox, oy = side.center[0] / scale - tx, side.center[1] / scale - ty
            d = math.hypot(ox, oy) or 1.0
            vote += (ox * vx + oy * vy) / (d * norm)
        votes.append(vote)
    if abs(votes[0] - votes[1]) <= cfg.side_vote:
        return None
    return 0 if votes[0] > votes[1] else 1


DAME_WORK_SIDE = 800
"""Dames are looked for on the picture shrunk to at most this many pixels a side."""
_SECTOR_IDS = np.arange(-12, 12)
"""An outline's 24 sectors of 15 degrees (``angle // 15``, the angle in degrees from -180)."""
_SECTORS = set(_SECTOR_IDS.tolist())
_SECTOR_COS = np.cos(np.radians(15.0 * _SECTOR_IDS + 7.5))
_SECTOR_SIN = np.sin(np.radians(15.0 * _SECTOR_IDS + 7.5))


def _dame_normals(cfg: DiceConfig, image: NDArray[np.uint8],
                  dice: Sequence[tuple[float, float, float]],
                  outlines: list[tuple[float, float, float, float, float]] | None = None
                  ) -> NDArray[np.float64] | None:
    """The board's normals (camera frame) that the round dames seen allow, or None.

    A dame is a disc lying on the board: its outline is an ellipse whose shape gives the
    board's normal, up to the mirror a small circle's ellipse cannot tell (as a pip's,
    :func:`_normal_candidates`), and sharper than a die's pips give it, being larger. An
    outline is taken as a dame's when an ellipse fits its edge points within ``dame_fit``,
    closed all round (or, cut by the picture's border, all along the ``dame_in_view`` or more of
    it in the picture), its radius ``dame_radius`` die edges, and not round a die found (a die's
    own rounded outline). Of the normals the dames allow, those most dames
    agree with (within 10 degrees) are kept.

    Args:
        cfg: the reader's settings.
        image: the whole picture, RGB (edges are looked for in each colour: a red dame on
            green felt is all but invisible in grey) or grey.
        dice: (x, y, edge) of each die found, in the picture's pixels.
        outlines: if given, each dame's outline taken is added to it as (x, y, axis, axis,
            degrees), an ellipse in the picture's pixels as ``cv2.ellipse`` draws it.
    """
    h, w = image.shape[:2]
    k = min(1.0, DAME_WORK_SIDE / max(w, h))
    small = _shrink(image, k)
    edge = float(np.median([d[2] for d in dice])) * k
    lo, hi = cfg.dame_radius[0] * edge, cfg.dame_radius[1] * edge
    soft = cv2.GaussianBlur(small, (0, 0), 1.0)
    edges = functools.reduce(np.bitwise_or, [cv2.Canny(np.ascontiguousarray(c), 30, 80)
                                             for c in cv2.split(soft)])
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    found: list[tuple[float, float, float, NDArray[np.float64]]] = []
    gh, gw = small.shape[:2]
    for contour in contours:
        if len(contour) < max(20.0, 4.0 * lo):
            continue
        (cx, cy), (d1, d2), angle = cv2.fitEllipse(contour)
        a, b = max(d1, d2) / 2, min(d1, d2) / 2
        if not lo <= a <= hi or b < 0.5 * a:
            continue
        whole = not (cx - a < 2 or cy - a < 2 or cx + a > gw - 3 or cy + a > gh - 3)
        if any(math.hypot(x * k - cx, y * k - cy) < a + 0.25 * s * k for x, y, s in dice):
            continue
        t = math.radians(angle)
        ct, st = math.cos(t), math.sin(t)
        pts = contour.reshape(-1, 2).astype(np.float64) - (cx, cy)
        u = (pts[:, 0] * ct + pts[:, 1] * st) / (d1 / 2)
        v = (-pts[:, 0] * st + pts[:, 1] * ct) / (d2 / 2)
        if float(np.mean(np.abs(np.hypot(u, v) - 1.0))) > cfg.dame_fit:
            continue
        # The outline must be seen all round (24 sectors of 15 degrees, two may be missed),
        # or, for a dame cut by the picture's border, all round within the picture.
        seen = set(np.unique((np.degrees(np.arctan2(v, u)) // 15).astype(int)).tolist())
        inside = _SECTORS
        if not whole:
            ex = cx + (d1 / 2) * _SECTOR_COS * ct - (d2 / 2) * _SECTOR_SIN * st
            ey = cy + (d1 / 2) * _SECTOR_COS * st + (d2 / 2) * _SECTOR_SIN * ct
            keep = (ex >= 3) & (ex <= gw - 4) & (ey >= 3) & (ey <= gh - 4)
            inside = set(_SECTOR_IDS[keep].tolist())
            if len(inside) < cfg.dame_in_view * len(_SECTORS):
                continue
        if len(inside - seen) > 2:
            continue  # an arc, not a whole outline
        rot = np.array([[ct, -st], [st, ct]])
        cov = rot @ np.diag([(d1 / 2) ** 2, (d2 / 2) ** 2]) @ rot.T
        found.append((cx / k, cy / k, a / k, cov))
        if outlines is not None:
            outlines.append((cx / k, cy / k, d1 / k, d2 / k, angle))
    if not found:
        return None
    # One normal pair per dame: concentric outlines (edge, rim) are one dame.
    pairs: list[NDArray[np.float64]] = []
    centres: list[tuple[float, float, float]] = []
    for cx, cy, a, cov in found:
        if any(math.hypot(cx - x, cy - y) < 0.3 * r for x, y, r in centres):
            continue
        centres.append((cx, cy, a))
        disc = _Face(pips=(), value=0, center=(cx, cy), radius=a, ratio=1.0, misfit=0.0,
                     minor=(0.0, 1.0), cov=cov)
        pairs.append(_normal_candidates(cfg, disc, (w, h), 1.0))
    every = np.concatenate(pairs)
    near = math.cos(math.radians(10.0))
    support = np.array([sum(bool(np.max(p @ n) >= near) for p in pairs) for n in every])
    return np.asarray(every[support == support.max()], dtype=np.float64)


def _dice_from_faces(cfg: DiceConfig, faces: Sequence[_Face], scale: float,
                     image_size: tuple[int, int],
                     picture: NDArray[np.uint8] | None = None,
                     outlines: list[tuple[float, float, float, float, float]] | None = None
                     ) -> list[Die]:
    groups = _group_faces(cfg, faces, image_size, scale)
    aways = _away_directions(cfg, groups)
    # Top face of every die, how clearly it beats the next candidate, and (when the top was
    # chosen by it) its |cos| to the board's normal.
    tops: list[tuple[_Face, float, list[_Face], float | None]] = []
    board = _board_unit(cfg)
    for group, away in zip(groups, aways, strict=True):
        if board is not None and len(group) > 1:
            # NOTE: with the board's normal known, the top face is the one turned most like
            # the board; near the edge of a wide view a side face may look rounder.
            turned = [(_board_cos(cfg, f, group, board, image_size, scale) if cfg.top_by_vote
                       else _facing(cfg, f, board, image_size, scale), f) for f in group]
            ranked = sorted(((c + 0.01 * f.ratio, c, f) for c, f in turned),
                            key=lambda sf: sf[0], reverse=True)
            lead = ranked[0][0] - ranked[1][0]
            tops.append((ranked[0][2], lead * 5, group, ranked[0][1] if cfg.top_by_vote
                         else None))
            continue
        scored = sorted(((_top_score(cfg, f, group, away), f) for f in group),
                        key=lambda sf: sf[0], reverse=True)
        top = scored[0][1]
        if top.ratio < cfg.top_ratio and len(group) == 1:
            continue  # a lone flat face: a side face whose top was not seen, or a stain
        lead = scored[0][0] - scored[1][0] if len(scored) > 1 else 1.0
        tops.append((top, lead, group, None))
    if math.isfinite(cfg.size_spread):
        least = min((_long_axis(t[0]) for t in tops if t[0].value > 1), default=math.inf)
        tops = [t for t in tops if _long_axis(t[0]) <= cfg.size_spread * least]
    if math.isfinite(cfg.one_spread):
        most = max((_long_axis(t[0]) for t in tops if t[0].value > 1), default=0.0)
        tops = [t for t in tops if t[0].value > 1 or cfg.one_spread * _long_axis(t[0]) >= most]
    dames = None
    if cfg.board_normal is None and cfg.dame_normal and picture is not None and tops:
        seen = [(t[0].center[0] / scale, t[0].center[1] / scale,
                 cfg.size_per_radius * t[0].radius / scale) for t in tops]
        dames = _dame_normals(cfg, picture, seen, outlines)
    odd, tilts = _odd_tops(cfg, [t[0] for t in tops], [t[2] for t in tops], image_size, scale,
                           [t[3] for t in tops], dames)
    dice: list[Die] = []
    top_at: list[tuple[float, float]] = []
    w, h = image_size
    for k, (top, lead, group, _) in enumerate(tops):
        size_in = cfg.size_per_radius * top.radius / scale
        at = (top.center[0] / scale, top.center[1] / scale)
        cx, cy = at
        confidence = float(np.clip(1.0 - top.misfit / (2 * cfg.pattern_tolerance), 0.0, 1.0))
        confidence *= float(np.clip(0.5 + lead / (2 * cfg.side_ratio_gap), 0.0, 1.0))
        reason: str | None = None
        if min(cx, cy, w - 1 - cx, h - 1 - cy) < cfg.border * size_in:
            if top.value == 1 and len(group) == 1:
                # NOTE: one dark blob cut by the border (a dame, a cable's end, print) shows
                # no die: no face beside it, no other pip. Say nothing rather than guess.
                continue
            reason = "out_of_view"
            confidence = 0.5
        elif top.ratio < cfg.top_ratio or k in odd:
            reason = "cocked"
            confidence = 0.6 if k in odd else float(np.clip(1.0 - top.ratio, 0.2, 1.0))
            if len(group) > 1:
                # NOTE: which face of a leaning die is its top is unsure: the middle of the
                # faces seen is nearer its top face than a wrongly chosen face is.
                cx = float(np.mean([f.center[0] for f in group])) / scale
                cy = float(np.mean([f.center[1] for f in group])) / scale
        tilt = tilts.get(k)
        dice.append(Die(value=None if reason else top.value, center=(cx, cy), size=size_in,
                        confidence=round(confidence, 3), reason=reason,
                        tilt=None if tilt is None else round(tilt, 1)))
        top_at.append(at)
    if board is not None:
        dice = _side_faces_dropped(cfg, dice, top_at)
    dice.sort(key=lambda d: (d.center[0], d.center[1]))
    return dice


def _side_faces_dropped(cfg: DiceConfig, dice: Sequence[Die],
                        tops: Sequence[tuple[float, float]]) -> list[Die]:
    """The dice found, less those that are a side face of a die beside them
    (``side_only_angle``).

    Args:
        cfg: the tuned values.
        dice: the dice found, each with the tilt judged against the board's normal.
        tops: the centre of each die's top face (image pixels), in the order of ``dice``.

    Returns:
        The dice kept, in their order.

    Raises:
        Nothing.
    """
    def tilt(d: Die) -> float:
        return 0.0 if d.tilt is None else d.tilt

    def near(k: int, j: int) -> bool:
        # NOTE: by either centre: a leaning die's reported centre is the middle of its faces
        # seen, and its size is told by one face; both are rough.
        apart = min(math.dist(dice[k].center, dice[j].center), math.dist(tops[k], tops[j]))
        return apart < cfg.side_only_reach * max(dice[k].size, dice[j].size)

    return [d for k, d in enumerate(dice) if not (tilt(d) > cfg.side_only_angle and any(
        tilt(o) < tilt(d) and near(k, j) for j, o in enumerate(dice) if j != k))]


def _median_radius(cfg: DiceConfig, pips: Sequence[_Pip]) -> float:
    """The median radius of the round pips (``large_pip_ratio``), or of all when none is."""
    round_ = [p.radius for p in pips if p.ratio >= cfg.large_pip_ratio]
    return float(np.median(round_ or [p.radius for p in pips]))


def _shrink(picture: NDArray[np.uint8], scale: float) -> NDArray[np.uint8]:
    """The picture (grey or colour) at ``scale`` (<= 1)."""
    if scale >= 1.0:
        return picture
    h, w = picture.shape[:2]
    # NOTE: INTER_AREA costs ~9 ms on a 2-megapixel frame; halve exactly first.
    done = 1.0
    while scale / done < 0.5:
        picture = np.asarray(cv2.pyrDown(picture), dtype=np.uint8)
        done *= 0.5
    return np.asarray(cv2.resize(picture, (round(w * scale), round(h * scale)),
                                 interpolation=cv2.INTER_LINEAR), dtype=np.uint8)


def read_dice(cfg: DiceConfig, image: NDArray[np.uint8]) -> DiceReading:
    """Find every die on an image and read its top face.

    Args:
        cfg: the tuned values (``DiceConfig()`` for the defaults).
        image: HxWx3 uint8 RGB, or HxW uint8 grey.

    Returns:
        The :class:`DiceReading`: every die seen, with its value or the reason it has none.

    Raises:
        ValueError: if ``image`` is not an HxWx3 or HxW uint8 array of at least 16x16 pixels.

    >>> import numpy as np
    >>> read_dice(DiceConfig(), np.full((48, 64, 3), 200, np.uint8)).to_json()
    {'image': [64, 48], 'dice': []}
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or not (
            image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 3)):
        raise ValueError("image must be an HxWx3 (RGB) or HxW uint8 array, got "
                         f"{getattr(image, 'shape', None)} {getattr(image, 'dtype', None)}")
    h, w = image.shape[:2]
    if min(h, w) < 16:
        raise ValueError(f"image is too small to hold dice: {w}x{h}")
    scale = min(1.0, cfg.work_side / max(w, h))
    full = _to_grey(image)
    grey = _shrink(full, scale)
    pips = _find_pips(cfg, grey)
    while pips and _median_radius(cfg, pips) > cfg.large_pip and min(grey.shape) > 128:
        # NOTE: pips wider than the threshold's window show only as rims: read smaller.
        scale /= 2.0
        grey = _shrink(full, scale)
        pips = _find_pips(cfg, grey)
    origin = (0.0, 0.0)  # working-frame position of the grey image's corner
    if pips and cfg.small_pip > 0 and float(np.median([p.radius for p in pips])) < cfg.small_pip:
        # NOTE: pips of two pixels or so have rough shapes. Read again, larger, only
        # the part of the picture that holds pips: from the full-size picture when it was
        # shrunk, else drawn larger (smoothly).
        if w * h <= cfg.small_whole:
            x0, y0, x1, y1 = 0.0, 0.0, float(w), float(h)
        else:
            reach = 14.0 * max(p.radius for p in pips)
            x0 = max(0.0, min(p.x for p in pips) - reach) / scale
            y0 = max(0.0, min(p.y for p in pips) - reach) / scale
            x1 = min(float(w), (max(p.x for p in pips) + reach) / scale)
            y1 = min(float(h), (max(p.y for p in pips) + reach) / scale)
        ix0, iy0, ix1, iy1 = int(x0), int(y0), math.ceil(x1), math.ceil(y1)
        scale *= cfg.small_zoom
        crop = full[iy0:iy1, ix0:ix1]
        size = (max(1, round((ix1 - ix0) * scale)), max(1, round((iy1 - iy0) * scale)))
        grey = np.asarray(cv2.resize(crop, size, interpolation=cv2.INTER_CUBIC
                                     if scale > 1.0 else cv2.INTER_LINEAR), dtype=np.uint8)
        origin = (ix0 * scale, iy0 * scale)
        pips = _find_pips(cfg, grey)
    faces = [dataclasses.replace(f, center=(f.center[0] + origin[0], f.center[1] + origin[1]))
             for f in _find_faces(cfg, grey, pips)]
    outlines: list[tuple[float, float, float, float, float]] = []
    dice = _dice_from_faces(cfg, faces, scale, (w, h), image, outlines)
    if cfg.net and dice:
        dice = _second_opinion(cfg, full, dice)
    ox, oy = origin
    debug: dict[str, object] = {
        "pips": [((p.x + ox) / scale, (p.y + oy) / scale, p.radius / scale, p.ratio)
                 for p in pips],
        "faces": [(f.value, f.center[0] / scale, f.center[1] / scale, f.ratio, f.misfit,
                   [((pips[i].x + ox) / scale, (pips[i].y + oy) / scale) for i in f.pips])
                  for f in faces],
        "dames": outlines,
    }
    return DiceReading(image_size=(w, h), dice=tuple(dice), debug=debug)


ONE_DIE = 0.93
"""Two faces found nearer than this many die sizes (centre to centre) may be faces of one die
(``net_cocked_apart``): adjacent faces' centres are 0.71 die apart, two dice side by side 1
die or more. The sizes found are rough: on the tuning boards of ``net_cocked_apart`` a
cocked die's top and side face, both read as values, lay 0.82-0.91 die apart (seed 5069),
and of 81 touching dice (5104, 1024x768) 2 lay nearer than 0.93 die, 9 between 0.93 and 1."""


def _uncock_threshold(cfg: DiceConfig) -> float:
    """How sure of a value the net must be to undo the rules' call of a cocked die."""
    if cfg.net_uncock_threshold is not None:
        return cfg.net_uncock_threshold
    return cfg.net_threshold if cfg.board_normal is None else cfg.net_uncock_board


def net_paths(cfg: DiceConfig) -> tuple[Path, ...]:
    """The weights files of ``cfg.net_weights`` (none when it names none)."""
    if not cfg.net_weights:
        return ()
    if isinstance(cfg.net_weights, str):
        return (Path(cfg.net_weights),)
    return tuple(Path(w) for w in cfg.net_weights)


def _second_opinion(cfg: DiceConfig, grey: NDArray[np.uint8], dice: list[Die]) -> list[Die]:
    """Let the net re-read each die found; where it is sure and disagrees, it decides.

    Without the board's normal the net's crop cannot show how the board is tilted, so it does
    not undo the call of a die judged leaning against the dames' normal (``cocked_angle_dame``).
    """
    todo = [k for k, d in enumerate(dice) if d.reason != "out_of_view"]
    if not todo:
        return dice
    # NOTE: in a straightened view of a board the ray to the camera, not the view's middle,
    # says which way a die shows its side faces.
    weights = net_paths(cfg) or (dicenet.WEIGHTS,)
    try:
        probs = dicenet.classify(grey, [(dice[k].center, dice[k].size) for k in todo],
                                 board_normal=cfg.board_normal, focal=cfg.focal,
                                 weights_path=weights, ray=cfg.view_ray)
    except dicenet.WeightsError as exc:
        if cfg.net_weights:
            raise
        raise dicenet.own_file_error(exc, dicenet.WEIGHTS) from None
    may_cock = cfg.board_normal is not None or cfg.net_cocked_uncalibrated
    out: list[Die | None] = list(dice)
    for k, p in zip(todo, probs, strict=True):
        die, best = dice[k], int(np.argmax(p))
        sure = float(p[best])
        beside = any((o.value is not None or o.reason == "out_of_view")
                     and ONE_DIE * die.size <= math.dist(die.center, o.center)
                     < cfg.net_cocked_apart * die.size for i, o in enumerate(dice) if i != k)
        if beside and best == dicenet.COCKED:
            continue
        if (may_cock and not beside and cfg.net_cocked_threshold is not None
                and float(p[dicenet.COCKED]) >= cfg.net_cocked_threshold
                and (cfg.net_cocked_tilt is None
                     or (best <= dicenet.COCKED
                         and (die.tilt or 0.0) >= cfg.net_cocked_tilt))):
            best, sure = dicenet.COCKED, float(p[dicenet.COCKED])
        elif sure < cfg.net_threshold:
            continue
        if best == dicenet.NOT_A_DIE:
            if cfg.net_keeps_beside and beside and die.value is not None:
                continue
            out[k] = None
        elif best == dicenet.OUT_OF_VIEW:
            # NOTE: not taken. A die is out of view when a pip of its top face is cut, and
            # every pip lies within half a die of the face's centre: the rules judge that from
            # the face's place (``border``). The net was taught, on older truth, to call a face
            # with only a corner cut "out of view"; its answer there is no evidence.
            continue
        elif best == dicenet.COCKED:
            if may_cock:
                out[k] = dataclasses.replace(die, value=None, reason="cocked",
                                             confidence=round(sure, 3))
        elif die.reason == "cocked" and (cfg.board_normal is None and die.tilt is not None
                                          and die.tilt > cfg.cocked_angle_dame
                                          or sure < _uncock_threshold(cfg)):
            continue
        elif die.value != best + 1:
            out[k] = dataclasses.replace(die, value=best + 1, reason=None,
                                         confidence=round(sure, 3))
        else:
            out[k] = dataclasses.replace(die, confidence=round(max(die.confidence, sure), 3))
    return [d for d in out if d is not None]


# Loading, evaluation and the debug entry ---------------------------------------------------

def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read an image file as HxWx3 uint8 RGB (:func:`tablier.vision.imageio.read_image`).

    Args:
        path: the image file.

    Returns:
        The image, RGB.

    Raises:
        ValueError: if the file is missing, unreadable, truncated, damaged or not an image;
            the message names the file.
    """
    return read_image(path)


def draw_reading(image: NDArray[np.uint8], reading: DiceReading) -> NDArray[np.uint8]:
    """Draw the pips, faces and dice of a reading, the dames' outlines found (magenta; without
    calibration) and the board's playing surface where it was found (grey), onto a copy of the
    image.

    Args:
        image: HxWx3 uint8 RGB, the image that was read.
        reading: what :func:`read_dice` returned for it.

    Returns:
        An annotated HxWx3 uint8 RGB copy.

    Raises:
        Nothing.
    """
    out = image.copy() if image.ndim == 3 else np.dstack([image] * 3)
    pips = reading.debug.get("pips", [])
    faces = reading.debug.get("faces", [])
    dames = reading.debug.get("dames", [])
    assert isinstance(pips, list) and isinstance(faces, list) and isinstance(dames, list)
    surface = reading.debug.get("surface")
    if isinstance(surface, list):
        cv2.polylines(out, [np.round(np.array(surface)).astype(np.int32)], True, (160, 160, 160),
                      2, cv2.LINE_AA)
    for x, y, d1, d2, angle in dames:
        cv2.ellipse(out, ((x, y), (d1, d2), angle), (255, 0, 255), 1, cv2.LINE_8)
    for x, y, r, _ in pips:
        cv2.circle(out, (round(x), round(y)), max(2, round(r)), (0, 160, 255), 1, cv2.LINE_AA)
    for value, cx, cy, ratio, _, members in faces:
        for x, y in members:
            cv2.line(out, (round(cx), round(cy)), (round(x), round(y)), (255, 200, 0), 1)
        cv2.putText(out, f"{value}:{ratio:.2f}", (round(cx) + 4, round(cy) - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 200, 0), 1, cv2.LINE_AA)
    for die in reading.dice:
        half = die.size / 2
        x, y = die.center
        colour = (0, 200, 0) if die.value is not None else (255, 0, 0)
        cv2.rectangle(out, (round(x - half), round(y - half)), (round(x + half), round(y + half)),
                      colour, 2)
        label = str(die.value) if die.value is not None else str(die.reason)
        cv2.putText(out, f"{label} {die.confidence:.2f}", (round(x - half), round(y - half) - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablier dice`` (this module's entry point is the same command).

    Args:
        argv: the command's arguments, without the program name; ``sys.argv[1:]`` when None.

    Returns:
        0, or 2 when the image cannot be read.

    Raises:
        SystemExit: from argparse on bad arguments.
    """
    from tablier.cli import main as cli_main

    return cli_main(["dice", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())

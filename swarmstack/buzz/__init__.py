"""buzz"""
